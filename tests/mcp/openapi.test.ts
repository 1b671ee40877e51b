import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';

let hub: TestHub;
let token: string;
let api: ChildProcess;
let base: string;
const text = (r: any) => r.content?.[0]?.text as string;

test.before(async () => {
  const p = await startProcess(process.execPath, [fixture('openapi-api.mjs')], {}, /PORT=\d+/);
  api = p.child;
  base = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}`;
  hub = await startHub();
  token = await hub.login();
  const res = await hub.request('POST', '/api/servers', {
    token,
    body: {
      name: 'pets',
      config: {
        type: 'openapi',
        openapi: { url: `${base}/openapi.json`, security: { type: 'apiKey', apiKey: { name: 'x-api-key', in: 'header', value: 'k-123' } } },
        headers: { 'x-custom': 'yes' },
      },
    },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  await waitFor(async () => (await hub.request('GET', '/api/servers/pets', { token })).body.data.status === 'connected', 10_000, 'pets connected');
});
test.after(async () => {
  await hub.close();
  await kill(api);
});

test('each operation becomes a tool with parameters and body in its input schema', async () => {
  const view = (await hub.request('GET', '/api/servers/pets', { token })).body.data;
  const names = view.tools.map((t: any) => t.name).sort();
  assert.equal(names, ['getPet', 'post_pets', 'secret']);
  const getPet = view.tools.find((t: any) => t.name === 'getPet');
  assert.is(getPet.description, 'Get a pet by id');
  assert.equal(getPet.inputSchema.required, ['id']);
  assert.is(getPet.inputSchema.properties.id.type, 'integer');
  const post = view.tools.find((t: any) => t.name === 'post_pets');
  // $refs are dereferenced.
  assert.is(post.inputSchema.properties.body.properties.name.type, 'string');
});

test('calls go to the API with path, query, body, headers and security applied', async () => {
  const c = await agent(hub.url + '/api/mcp', { token });
  const got = await c.callTool({ name: 'pets-getPet', arguments: { id: 7, verbose: true } });
  assert.equal(JSON.parse(text(got)), { id: 7, name: 'Rex', verbose: 'true' });
  const created = await c.callTool({ name: 'pets-post_pets', arguments: { body: { name: 'Tom', age: 3 } } });
  assert.equal(JSON.parse(text(created)), { created: { name: 'Tom', age: 3 } });
  const secret = await c.callTool({ name: 'pets-secret', arguments: {} });
  assert.equal(JSON.parse(text(secret)), { secret: 42, custom: 'yes' });
  await c.close();
});

test('HTTP errors become tool errors carrying the status', async () => {
  const r = await hub.request('POST', '/api/tools/call/pets', { token, body: { toolName: 'getPet', arguments: { id: '404' } } });
  assert.is(r.status, 200);
  assert.is(r.body.data.isError, true);
  assert.match(text(r.body.data), /HTTP 404/);
});

test('an inline schema works without a URL to fetch it from', async () => {
  const doc = await (await fetch(`${base}/openapi.json`)).json();
  doc.servers = [{ url: `${base}/v1` }];
  const res = await hub.request('POST', '/api/servers', { token, body: { name: 'inline', config: { type: 'openapi', openapi: { schema: doc } } } });
  assert.is(res.status, 200);
  await waitFor(async () => (await hub.request('GET', '/api/servers/inline', { token })).body.data.status === 'connected', 10_000, 'inline connected');
  const r = await hub.request('POST', '/api/tools/call/inline', { token, body: { toolName: 'getPet', arguments: { id: '3' } } });
  assert.match(text(r.body.data), /"id": 3/);
});

test('a document that cannot be loaded leaves the server in error with the reason', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'nodoc', config: { type: 'openapi', openapi: { url: `${base}/missing.json` } } } });
  const v = await waitFor(async () => {
    const d = (await hub.request('GET', '/api/servers/nodoc', { token })).body.data;
    return d.status === 'error' && d;
  }, 10_000, 'error');
  assert.match(v.error, /OpenAPI/);
});

test.run();
