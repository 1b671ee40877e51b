import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const req = (method: string, url: string, body?: unknown, t = token) => hub.request(method, url, { token: t, body });

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await req('POST', '/api/servers', { name: 'everything', config: stdioEverything() });
  await req('POST', '/api/servers', { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } });
  await waitFor(async () => (await req('GET', '/api/servers')).body.data.every((s: any) => s.status === 'connected'), 15_000, 'connected');
});
test.after(() => hub.close());

test('groups: create with a generated id, get by id or name, unique names, update, server-configs', async () => {
  const created = await req('POST', '/api/groups', { name: 'dev', description: 'Developers', servers: ['everything'] });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const id = created.body.data.id;
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.is(created.body.data.owner, 'admin');
  assert.equal((await req('GET', `/api/groups/${id}`)).body.data.servers, ['everything']);
  assert.is((await req('GET', '/api/groups/dev')).body.data.id, id);
  assert.is((await req('POST', '/api/groups', { name: 'dev' })).status, 409);
  const missing = await req('POST', '/api/groups', { name: 'x', servers: ['nope'] });
  assert.is(missing.status, 400);
  assert.match(missing.body.error, /servers\.0/);
  assert.is((await req('POST', '/api/groups', { description: 'no name' })).status, 400);
  const upd = await req('PUT', `/api/groups/${id}`, { description: 'Devs' });
  assert.is(upd.body.data.description, 'Devs');
  const list = await req('GET', '/api/groups');
  assert.ok(list.body.data.some((g: any) => g.id === id && g.name === 'dev'));
  assert.is((await req('GET', '/api/groups/nope')).status, 404);
});

test('groups: add/remove a server, batch replace, per-server tool selection enforced on the group route', async () => {
  const add = await req('POST', '/api/groups/dev/servers', { serverName: 'crashy' });
  assert.equal(add.body.data.servers, ['everything', 'crashy']);
  const del = await req('DELETE', '/api/groups/dev/servers/crashy');
  assert.equal(del.body.data.servers, ['everything']);
  const batch = await req('PUT', '/api/groups/dev/servers/batch', { servers: [{ name: 'everything', tools: ['echo'] }, 'crashy'] });
  assert.is(batch.status, 200);
  const configs = await req('GET', '/api/groups/dev/server-configs');
  assert.equal(configs.body.data.map((c: any) => [c.name, c.tools]), [['everything', ['echo']], ['crashy', 'all']]);
  const c = await agent(hub.url + '/api/mcp/group/dev', { token });
  let names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('everything-echo') && !names.includes('everything-get-sum'));
  const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  let changed = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  const sel = await req('PUT', '/api/groups/dev/server-configs/everything/tools', { tools: ['echo', 'get-sum'] });
  assert.is(sel.status, 200);
  await waitFor(() => changed > 0, 5000, 'list_changed for the group');
  names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('everything-get-sum'));
  await c.close();
});

test('users: admin CRUD, stats, password rules, last admin protected, no hashes returned', async () => {
  const created = await req('POST', '/api/users', { username: 'alice', password: 'alice-pass', servers: ['crashy'] });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.is(created.body.data.role, 'user');
  const short = await req('POST', '/api/users', { username: 'bob', password: '12345' });
  assert.is(short.status, 400);
  assert.match(short.body.error, /password/);
  assert.is((await req('POST', '/api/users', { username: 'alice', password: 'another-1' })).status, 409);
  const got = await req('GET', '/api/users/alice');
  assert.equal(got.body.data.servers, ['crashy']);
  const stats = await req('GET', '/api/users-stats');
  assert.equal(stats.body.data, { totalUsers: 2, adminUsers: 1, regularUsers: 1, usersPerServer: { crashy: 1 }, usersPerGroup: {} });
  const demote = await req('PUT', '/api/users/admin', { role: 'user' });
  assert.is(demote.status, 409);
  assert.is((await req('DELETE', '/api/users/admin')).status, 409);
  const all = JSON.stringify((await req('GET', '/api/users')).body);
  assert.not.match(all, /argon2|password"/);
  await req('PUT', '/api/system-config', { passwordPolicy: { minLength: 10, requireNumbers: true, preventReuse: 2 } });
  const weak = await req('PUT', '/api/users/alice', { password: 'longbutnonumber' });
  assert.is(weak.status, 400);
  assert.match(weak.body.error, /number/);
  assert.is((await req('PUT', '/api/users/alice', { password: 'alice-pass-2' })).status, 200);
  const reuse = await req('PUT', '/api/users/alice', { password: 'alice-pass-2' });
  assert.is(reuse.status, 400);
  assert.match(reuse.body.error, /differ/);
  await req('PUT', '/api/system-config', { passwordPolicy: { minLength: 6, requireNumbers: false, preventReuse: 0 } });
});

test('a user sees only their servers and can call only those, on REST and MCP', async () => {
  const t = await hub.login('alice', 'alice-pass-2');
  const list = await req('GET', '/api/servers', undefined, t);
  assert.equal(list.body.data.map((s: any) => s.name), ['crashy']);
  assert.is((await req('GET', '/api/servers/everything', undefined, t)).status, 404);
  assert.is((await req('POST', '/api/tools/call/everything', { toolName: 'echo', arguments: { message: 'x' } }, t)).status, 404);
  assert.is((await req('POST', '/api/tools/call/crashy', { toolName: 'echo', arguments: { message: 'x' } }, t)).status, 200);
  const c = await agent(hub.url + '/api/mcp', { token: t });
  const names = (await c.listTools()).tools.map((x) => x.name);
  assert.ok(names.length > 0 && names.every((n) => n.startsWith('crashy-')));
  try {
    await c.callTool({ name: 'everything-echo', arguments: { message: 'x' } });
    assert.unreachable('called a server outside the user access');
  } catch (err) {
    assert.match(String(err), /not found/);
  }
  await c.close();
  const denied = await fetch(hub.url + '/api/mcp/group/dev', {
    method: 'POST',
    headers: { authorization: `Bearer ${t}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  assert.is(denied.status, 403);
  // Adding alice to the group grants exactly its selection.
  assert.is((await req('POST', '/api/groups/dev/users', { userId: 'alice' })).status, 200);
  const g = await agent(hub.url + '/api/mcp/group/dev', { token: t });
  const gn = (await g.listTools()).tools.map((x) => x.name);
  assert.ok(gn.includes('everything-echo') && !gn.includes('everything-get-env'));
  // Leaving the group takes effect inside the open session too.
  await req('PUT', '/api/users/alice', { groups: [] });
  assert.not.ok((await g.listTools()).tools.some((x) => x.name === 'everything-echo'));
  await req('POST', '/api/groups/dev/users', { userId: 'alice' });
  await g.close();
  assert.is((await req('GET', '/api/users', undefined, t)).status, 403);
});

test('non-admins cannot add stdio servers', async () => {
  await req('POST', '/api/users', { username: 'mgr', password: 'manager-pass', role: 'manager' });
  const t = await hub.login('mgr', 'manager-pass');
  const res = await req('POST', '/api/servers', { name: 'sneaky', config: { command: 'sh', args: ['-c', 'id'] } }, t);
  assert.is(res.status, 403);
  const http = await req('POST', '/api/servers', { name: 'remote-ok', config: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' } }, t);
  assert.is(http.status, 200);
});

test('renaming a server updates the groups and users that hold it', async () => {
  await req('POST', '/api/groups', { name: 'ren', servers: [{ name: 'crashy', tools: ['echo'] }] });
  await req('PUT', '/api/users/alice', { servers: ['crashy'] });
  const cfg = (await req('GET', '/api/servers/crashy')).body.data.config;
  const res = await req('PUT', '/api/servers/crashy', { config: cfg, newName: 'crashy2' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.data.name, 'crashy2');
  assert.equal((await req('GET', '/api/groups/ren/server-configs')).body.data[0], { name: 'crashy2', tools: ['echo'], prompts: 'all', resources: 'all' });
  assert.equal((await req('GET', '/api/users/alice')).body.data.servers, ['crashy2']);
  assert.is((await req('GET', '/api/servers/crashy')).status, 404);
  await waitFor(async () => (await req('GET', '/api/servers/crashy2')).body.data.status === 'connected', 10_000, 'renamed server connected');
  assert.is((await req('PUT', '/api/servers/crashy2', { config: cfg, newName: 'everything' })).status, 409);
});

test('deleting a group removes it from users; deleting a user works', async () => {
  assert.is((await req('DELETE', '/api/groups/dev')).status, 200);
  assert.equal((await req('GET', '/api/users/alice')).body.data.groups, []);
  assert.is((await req('DELETE', '/api/users/alice')).status, 200);
  assert.is((await req('GET', '/api/users/alice')).status, 404);
});

test.run();
