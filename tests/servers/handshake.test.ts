import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

test('a server that never answers initialize shows error with the reason, and stays error while it is retried', async () => {
  // A process that reads stdin and never answers.
  await hub.request('POST', '/api/servers', { token, body: { name: 'silent', config: { command: process.execPath, args: ['-e', 'process.stdin.resume()'], timeout: 800 } } });
  const view = await waitFor(async () => {
    const v = (await hub.request('GET', '/api/servers/silent', { token })).body.data;
    return v.status === 'error' && v;
  }, 10_000, 'error status');
  assert.match(view.error, /timed out/i);
  const seen = new Set<string>();
  for (let i = 0; i < 15; i++) {
    seen.add((await hub.request('GET', '/api/servers/silent', { token })).body.data.status);
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal([...seen], ['error'], 'never back to connecting while retried');
});

test.run();
