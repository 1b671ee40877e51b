/** Stopping Hub: SIGTERM lets tool calls under way finish before their servers stop, and says where the data is. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../helpers/hub';
import { startMain, stop } from '../helpers/process';
import { stdioEverything, waitFor } from '../helpers/mcp';

test('SIGTERM drains a tool call under way, refuses new ones, then stops; start-up names the data folder and logs', async () => {
  const dir = await tempDir();
  const settings = path.join(dir, 'mcp_settings.json');
  const hub = await startMain({ MCPHUB_SETTING_PATH: settings, AUTH_PASSWORD: 'drain-pass-1' });
  try {
    assert.match(hub.output(), new RegExp(`Data folder: ${dir}.*logs ${path.join(dir, 'logs')}`));
    const login = await (await fetch(`${hub.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'drain-pass-1' }) })).json();
    const headers = { authorization: `Bearer ${login.token}`, 'content-type': 'application/json' };
    await fetch(`${hub.url}/api/servers`, { method: 'POST', headers, body: JSON.stringify({ name: 'everything', config: stdioEverything() }) });
    await waitFor(async () => (await (await fetch(`${hub.url}/api/servers/everything`, { headers })).json()).data.status === 'connected', 15_000, 'connected');
    const call = (duration: number) =>
      fetch(`${hub.url}/api/tools/call/everything`, { method: 'POST', headers, body: JSON.stringify({ toolName: 'trigger-long-running-operation', arguments: { duration, steps: 2 } }) });
    const long = call(2);
    await new Promise((r) => setTimeout(r, 300));
    const exited = stop(hub.child, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const late = await call(1).catch(() => null);
    if (late) assert.is(late.status, 503, 'a call begun after SIGTERM ran');
    const res = await long;
    assert.is(res.status, 200, 'the call under way did not finish');
    assert.match(JSON.stringify(await res.json()), /Long running operation completed/);
    assert.is(await exited, 0);
  } finally {
    hub.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
