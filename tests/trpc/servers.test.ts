import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { wsClient } from '../helpers/trpc';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

test('the typed client manages servers and hears their status change live', async () => {
  const { client, close } = wsClient(hub.url, token);
  const seen: Array<{ name: string; status: string }> = [];
  const sub = client.servers.onStatus.subscribe(undefined, { onData: (e) => void seen.push({ name: e.data.name, status: e.data.status }) });
  await new Promise((r) => setTimeout(r, 100));
  const created = await client.servers.create.mutate({ name: 'live', config: { command: process.execPath, args: [fixture('crashy.mjs')] } });
  assert.is(created.name, 'live');
  await waitFor(() => seen.some((e) => e.name === 'live' && e.status === 'connected'), 10_000, 'connected event');
  assert.ok(seen.some((e) => e.name === 'live' && e.status === 'connecting'));
  const list = await client.servers.list.query();
  const rest = await hub.request('GET', '/api/servers', { token });
  assert.equal(list.map((s) => s.name), rest.body.data.map((s: { name: string }) => s.name));
  const tool = await client.servers.toggleItem.mutate({ kind: 'tools', server: 'live', item: 'echo', enabled: false });
  assert.is(tool?.enabled, false);
  const result = await client.tools.callTool.mutate({ server: 'live', toolName: 'pid' });
  assert.match(String((result.content[0] as { text: string }).text), /^\d+$/);
  // A crash reaches the subscription too, then the respawn.
  await client.tools.callTool.mutate({ server: 'live', toolName: 'crash' }).catch(() => undefined);
  await waitFor(() => seen.some((e) => e.name === 'live' && (e.status === 'disconnected' || e.status === 'error')), 10_000, 'crash event');
  await waitFor(() => seen.filter((e) => e.name === 'live' && e.status === 'connected').length >= 2, 15_000, 'back up');
  sub.unsubscribe();
  // Resuming sends the current status of every server first.
  const resumed: string[] = [];
  const again = client.servers.onStatus.subscribe({ lastEventId: '1' }, { onData: (e) => void resumed.push(`${e.data.name}:${e.data.status}`) });
  await waitFor(() => resumed.includes('live:connected'), 5000, 'snapshot on resume');
  again.unsubscribe();
  close();
});

test.run();
