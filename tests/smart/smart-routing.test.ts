import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const text = (r: any) => r.content?.[0]?.text as string;
const parse = (r: any) => JSON.parse(text(r));

// A local OpenAI-compatible embeddings API: words map onto a few concept axes, so
// "automobile" and "vehicle" land close while sharing no letters.
const concepts = [['car', 'automobile', 'vehicle', 'truck'], ['weather', 'forecast', 'rain'], ['sum', 'add', 'number', 'plus'], ['echo', 'repeat', 'message']];
const embed = (s: string) => concepts.map((words) => s.toLowerCase().split(/[^a-z]+/).filter((w) => words.includes(w)).length + 0.01);
const requests: Array<{ inputs: number; auth?: string }> = [];
let throttleOnce = true;
const provider = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (throttleOnce) {
      throttleOnce = false;
      res.writeHead(429, { 'retry-after': '0' }).end('slow down');
      return;
    }
    const { input } = JSON.parse(body) as { input: string[] };
    requests.push({ inputs: input.length, auth: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: input.map((s, index) => ({ index, embedding: embed(s) })) }));
  });
});

test.before(async () => {
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', () => r()));
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'everything', config: stdioEverything() } });
  const tools = [
    { name: 'find_vehicle', description: 'Look up a truck or van by its plate' },
    { name: 'get_forecast', description: 'Weather forecast for a city' },
    { name: 'secret_tool', description: 'Launch the rockets' },
  ];
  await hub.request('POST', '/api/servers', { token, body: { name: 'fleet', config: { command: process.execPath, args: [fixture('catalog.mjs')], env: { TOOLS: JSON.stringify(tools) } } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers', { token })).body.data.every((s: any) => s.status === 'connected'), 15_000, 'connected');
  await hub.request('POST', '/api/servers/fleet/tools/secret_tool/toggle', { token, body: { enabled: false } });
});
test.after(async () => {
  await hub.close();
  provider.close();
});

test('the $smart route is off until smartRouting.enabled', async () => {
  const res = await fetch(`${hub.url}/api/mcp/$smart`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  assert.is(res.status, 404);
});

test('lexical search (no external service) finds, describes and calls tools', async () => {
  await hub.request('PUT', '/api/system-config', { token, body: { smartRouting: { enabled: true } } });
  const c = await agent(`${hub.url}/api/mcp/$smart`, { token });
  assert.equal((await c.listTools()).tools.map((t) => t.name).sort(), ['call_tool', 'describe_tool', 'search_tools']);
  const found = parse(await c.callTool({ name: 'search_tools', arguments: { query: 'add two numbers', limit: 3 } }));
  assert.is(found.results[0].name, 'everything-get-sum');
  assert.ok(found.results[0].server === 'everything' && typeof found.results[0].score === 'number' && found.results[0].description);
  const described = parse(await c.callTool({ name: 'describe_tool', arguments: { toolName: 'everything-get-sum' } }));
  assert.ok(described.inputSchema.properties.a);
  const called = await c.callTool({ name: 'call_tool', arguments: { toolName: 'everything-get-sum', arguments: { a: 2, b: 3 } } });
  assert.match(text(called), /5/);
  await c.close();
});

test('a disabled tool is never found nor callable; a group route searches only its selection', async () => {
  const c = await agent(`${hub.url}/mcp/$smart`, { token });
  const found = parse(await c.callTool({ name: 'search_tools', arguments: { query: 'launch rockets' } }));
  assert.not.ok(found.results.some((r: any) => r.name === 'fleet-secret_tool'));
  try {
    await c.callTool({ name: 'call_tool', arguments: { toolName: 'fleet-secret_tool' } });
    assert.unreachable('disabled tool called');
  } catch (err) {
    assert.match(String(err), /not found/);
  }
  await c.close();
  await hub.request('POST', '/api/groups', { token, body: { name: 'weather', servers: [{ name: 'fleet', tools: ['get_forecast'] }] } });
  const g = await agent(`${hub.url}/api/mcp/$smart/group/weather`, { token });
  const inGroup = parse(await g.callTool({ name: 'search_tools', arguments: { query: 'add numbers sum' } }));
  assert.ok(inGroup.results.every((r: any) => r.name === 'fleet-get_forecast'));
  try {
    await g.callTool({ name: 'call_tool', arguments: { toolName: 'everything-get-sum', arguments: { a: 1, b: 1 } } });
    assert.unreachable('tool outside the group called');
  } catch (err) {
    assert.match(String(err), /not found/);
  }
  assert.match(text(await g.callTool({ name: 'call_tool', arguments: { toolName: 'fleet-get_forecast' } })), /ran get_forecast/);
  await g.close();
});

test('with an embeddings provider, search is hybrid: a query sharing no word with the tool still finds it', async () => {
  const url = `http://127.0.0.1:${(provider.address() as { port: number }).port}/v1`;
  await hub.request('PUT', '/api/system-config', { token, body: { smartRouting: { enabled: true, providerApiBaseUrl: url, providerApiKey: 'sk-local', providerApiEmbeddingModel: 'concepts' } } });
  const status = await hub.request('POST', '/api/smart-routing/reindex', { token });
  assert.is(status.status, 200, JSON.stringify(status.body));
  assert.is(status.body.data.mode, 'hybrid');
  assert.ok(status.body.data.embedded >= 15);
  assert.ok(requests.every((r) => r.auth === 'Bearer sk-local'));
  assert.ok(requests.some((r) => r.inputs > 1), 'tools are embedded in batches');
  const c = await agent(`${hub.url}/api/mcp/$smart`, { token });
  const found = parse(await c.callTool({ name: 'search_tools', arguments: { query: 'automobile', limit: 3 } }));
  assert.is(found.results[0].name, 'fleet-find_vehicle');
  await c.close();
  // Unchanged tools are not embedded again; vectors are kept in the data folder.
  const before = requests.reduce((n, r) => n + r.inputs, 0);
  await hub.request('POST', '/api/smart-routing/reindex', { token });
  assert.is(requests.reduce((n, r) => n + r.inputs, 0), before);
  const cache = JSON.parse(await readFile(path.join(hub.dir, 'embeddings.json'), 'utf8'));
  assert.is(cache.model, 'concepts');
});

test('with dbUrl the vectors live in PostgreSQL (plain arrays here: this server has no pgvector)', async () => {
  const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pgmod = await import('pg');
  const client = new pgmod.default.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query('DROP TABLE IF EXISTS hub_tool_embeddings');
  try {
    await hub.request('PUT', '/api/system-config', { token, body: { smartRouting: { dbUrl: pgUrl } } });
    const status = await hub.request('POST', '/api/smart-routing/reindex', { token });
    assert.ok(['postgres', 'pgvector'].includes(status.body.data.storage), JSON.stringify(status.body.data));
    assert.is(status.body.data.lastError, null);
    const { rows } = await client.query('SELECT count(*)::int AS n FROM hub_tool_embeddings');
    assert.ok(rows[0].n >= 15);
    const c = await agent(`${hub.url}/api/mcp/$smart`, { token });
    const found = parse(await c.callTool({ name: 'search_tools', arguments: { query: 'automobile', limit: 3 } }));
    assert.is(found.results[0].name, 'fleet-find_vehicle');
    await c.close();
  } finally {
    await hub.request('PUT', '/api/system-config', { token, body: { smartRouting: { dbUrl: '' } } });
    await client.query('DROP TABLE IF EXISTS hub_tool_embeddings');
    await client.end();
  }
});

test('the console procedures: status and a trial query under the caller access', async () => {
  const res = await hub.request('POST', '/api/smart-routing/search', { token, body: { query: 'weather forecast' } });
  assert.is(res.body.data[0].name, 'fleet-get_forecast');
  const bad = await hub.request('POST', '/api/smart-routing/search', { token, body: { query: '' } });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /query/);
});

test.run();
