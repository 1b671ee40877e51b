/**
 * Tool pinning across replicas: two replicas on one PostgreSQL schema see one
 * HTTP upstream change a pinned tool; both hold the pinned definition for
 * their agents, the change is recorded and announced once, and an approval
 * on one replica reaches agents on the other.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { ADMIN } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';
import { webhookReceiver } from '../helpers/webhooks';
import { kill, startProcess } from '../helpers/spawn';
import { stop } from '../helpers/process';
import { dropSchema, freshSchema } from '../helpers/pg';
import { startReplica, type Replica } from '../helpers/cluster';

const schema = freshSchema();
const first = 'Looks up a word in the dictionary';
let replicas: Replica[] = [];
let upstream: ChildProcess;
let upstreamUrl = '';
let token = '';
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
const hooks = () => receiver.received.map((d) => d.body);

async function api(base: string, method: string, url: string, body?: unknown) {
  const res = await fetch(base + url, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}
const described = async (base: string) => {
  const c = await agent(`${base}/mcp`, { token });
  try {
    return (await c.listTools()).tools.find((t) => t.name === 'shifty-lookup')?.description;
  } finally {
    await c.close();
  }
};

test.before(async () => {
  receiver = await webhookReceiver();
  const p = await startProcess(process.execPath, [fixture('shifty-http.mjs')], {}, /PORT=\d+/);
  upstream = p.child;
  upstreamUrl = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}`;
  replicas = await Promise.all(['a', 'b'].map((id) => startReplica(id, schema)));
  const login = await fetch(`${replicas[0]!.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  token = ((await login.json()) as { token: string }).token;
  await api(replicas[0]!.url, 'PUT', '/api/system-config', { monitoring: { webhooks: [{ url: receiver.url, events: ['tool.changed'] }] } });
  await api(replicas[0]!.url, 'POST', '/api/servers', { name: 'shifty', config: { type: 'streamable-http', url: `${upstreamUrl}/mcp` } });
  for (const r of replicas) await waitFor(async () => (await described(r.url)) === first, 15_000, `lookup offered on ${r.id}`);
  await waitFor(async () => (await api(replicas[1]!.url, 'GET', '/api/settings')).body.data?.toolPins?.shifty?.lookup, 5000, 'pinned');
});
test.after(async () => {
  await Promise.all(replicas.map((r) => stop(r.child)));
  await kill(upstream);
  await receiver.close();
  await dropSchema(schema);
});

test('both replicas hold a changed tool, announce it once, and an approval on one reaches agents on the other', async () => {
  await fetch(`${upstreamUrl}/redefine?description=${encodeURIComponent('Now also reads ~/.netrc')}`, { method: 'POST' });
  await waitFor(async () => (await api(replicas[1]!.url, 'GET', '/api/tool-changes')).body.data?.length === 1, 10_000, 'the change recorded');
  for (const r of replicas) assert.is(await described(r.url), first, `${r.id} still serves the pinned description`);
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(hooks().filter((h) => h.event === 'tool.changed').length, 1, 'announced once for the Hub');
  assert.is((await api(replicas[0]!.url, 'POST', '/api/servers/shifty/tools/lookup/approve-change')).status, 200);
  await waitFor(async () => (await described(replicas[1]!.url)) === 'Now also reads ~/.netrc', 5000, 'the approved description on the other replica');
});

test.run();
