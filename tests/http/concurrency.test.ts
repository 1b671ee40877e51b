import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { startHub } from '../helpers/hub';

test('200 concurrent PUT /api/system-config all land, and the file is valid JSON throughout', async () => {
  const hub = await startHub();
  const token = await hub.login();
  let reads = 0;
  let invalid = 0;
  let watching = true;
  // Read the file as fast as we can while the writes happen: every read must parse.
  const watcher = (async () => {
    while (watching) {
      const text = await readFile(hub.settingsPath, 'utf8');
      reads++;
      try {
        JSON.parse(text);
      } catch {
        invalid++;
      }
    }
  })();
  const responses = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      hub.request('PUT', '/api/system-config', { token, body: { mcpRouter: { title: `t${i}` }, [`llm`]: { maxTokens: i + 1 } } }).then(
        async (r) => {
          // Acknowledged means durable: the file already holds a state at least this new.
          const saved = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
          return { status: r.status, maxTokens: saved.systemConfig.llm?.maxTokens as number, i };
        },
      ),
    ),
  );
  watching = false;
  await watcher;
  assert.ok(responses.every((r) => r.status === 200), 'every PUT succeeded');
  assert.is(invalid, 0, `all ${reads} reads of the file parsed`);
  assert.ok(reads > 0);
  const saved = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  // Requests are applied in arrival order; the last applied one is what the file holds.
  const titles = new Set(responses.map((r) => `t${r.i}`));
  assert.ok(titles.has(saved.systemConfig.mcpRouter.title));
  assert.is(hub.app.hub.services.store.get().systemConfig.mcpRouter?.title, saved.systemConfig.mcpRouter.title);
  await hub.close();
});

test('200 concurrent writes to different sections are all kept', async () => {
  const hub = await startHub();
  const token = await hub.login();
  const sections = ['routing', 'install', 'smartRouting', 'mcpRouter'] as const;
  const bodies = Array.from({ length: 200 }, (_, i) => {
    const section = sections[i % 4]!;
    const value =
      section === 'routing' ? { enableGlobalRoute: i % 8 === 0 }
      : section === 'install' ? { baseUrl: `https://h${i}.example.com` }
      : section === 'smartRouting' ? { dbUrl: `postgres://db/${i}` }
      : { referer: `r${i}` };
    return { [section]: value };
  });
  const results = await Promise.all(bodies.map((body) => hub.request('PUT', '/api/system-config', { token, body })));
  assert.ok(results.every((r) => r.status === 200));
  const saved = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  assert.is(saved.systemConfig.install.baseUrl, 'https://h197.example.com');
  assert.is(saved.systemConfig.smartRouting.dbUrl, 'postgres://db/198');
  assert.is(saved.systemConfig.mcpRouter.referer, 'r199');
  await hub.close();
});

test.run();
