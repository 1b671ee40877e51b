/**
 * The MCP methods against every kind of caller: the same permissions as REST
 * (a session needs tools:execute; lists need the read permission, prompts/get
 * prompts:execute, reading resources servers:execute), the caller's servers,
 * and a group-scoped key only on its group's route.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TestHub } from '../helpers/hub';
import { matrixHub, type Caller } from '../helpers/callers';
import { agent } from '../helpers/mcp';

// What Hub grants an MCPHub bearer key on the MCP routes.
const bearerPerms = new Set(['servers:read', 'servers:execute', 'tools:read', 'tools:execute', 'prompts:read', 'prompts:execute']);
const uri = 'demo://resource/static/document/architecture.md';

/** Each method: the permission it needs, and whether it worked (lists: whether `everything` shows in them). */
const methods: Array<{ method: string; need: string; run: (c: Client) => Promise<boolean> }> = [
  { method: 'tools/list', need: 'tools:read', run: async (c) => (await c.listTools()).tools.some((t) => t.name === 'everything-echo') },
  { method: 'tools/call', need: 'tools:execute', run: async (c) => !(await c.callTool({ name: 'everything-echo', arguments: { message: 'm' } })).isError },
  { method: 'prompts/list', need: 'prompts:read', run: async (c) => (await c.listPrompts()).prompts.some((p) => p.name === 'everything-simple-prompt') },
  { method: 'prompts/get', need: 'prompts:execute', run: async (c) => (await c.getPrompt({ name: 'everything-simple-prompt' })).messages.length > 0 },
  { method: 'resources/list', need: 'servers:read', run: async (c) => (await c.listResources()).resources.some((r) => r.uri === uri) },
  { method: 'resources/read', need: 'servers:execute', run: async (c) => (await c.readResource({ uri })).contents.length > 0 },
  { method: 'completion/complete', need: 'prompts:read', run: async (c) => Array.isArray((await c.complete({ ref: { type: 'ref/prompt', name: 'everything-args-prompt' }, argument: { name: 'city', value: 'P' } })).completion.values) },
];

let hub: TestHub;
let callers: Caller[];

test.before(async () => {
  ({ hub, callers } = await matrixHub());
});
test.after(() => hub.close());

const mcpPerms = (c: Caller) => (c.kind === 'bearer' ? bearerPerms : c.perms);

async function opens(url: string, c: Caller): Promise<Client | number> {
  try {
    return await agent(hub.url + url, { token: c.credential });
  } catch (err) {
    return Number(/(\d{3})/.exec(String((err as { code?: number }).code ?? err))?.[1] ?? 0);
  }
}

test('a session opens only with tools:execute, and a group-scoped key only on its group', async () => {
  const failures: string[] = [];
  for (const c of callers) {
    const perms = mcpPerms(c);
    for (const url of ['/api/mcp', '/mcp', '/mcp/fixed']) {
      const want = !perms ? 'refused' : !perms.has('tools:execute') ? 'refused' : c.kind === 'bearer' && url !== '/mcp/fixed' ? 'refused' : 'opens';
      const got = await opens(url, c);
      if ((typeof got === 'number' ? 'refused' : 'opens') !== want) failures.push(`${url} as ${c.name}: ${typeof got === 'number' ? `refused (${got})` : 'opens'}, want ${want}`);
      if (typeof got === 'number' && want === 'refused' && got !== (perms ? 403 : 401)) failures.push(`${url} as ${c.name}: status ${got}, want ${perms ? 403 : 401}`);
      if (typeof got !== 'number') await got.close();
    }
  }
  assert.equal(failures, []);
});

test('every MCP method gives each caller what its permissions and servers allow', async () => {
  const failures: string[] = [];
  let checked = 0;
  for (const c of callers) {
    const perms = mcpPerms(c);
    if (!perms?.has('tools:execute')) continue;
    const client = await opens(c.kind === 'bearer' ? '/mcp/fixed' : '/api/mcp', c);
    if (typeof client === 'number') {
      failures.push(`${c.name}: could not open a session (${client})`);
      continue;
    }
    for (const m of methods) {
      const want = perms.has(m.need) && (c.kind === 'bearer' || c.sees);
      const got = await m.run(client).catch(() => false);
      checked++;
      if (got !== want) failures.push(`${m.method} as ${c.name}: ${got ? 'worked' : 'refused or empty'}, want ${want ? 'worked' : 'refused or empty'}`);
    }
    await client.close();
  }
  assert.ok(checked >= 5 * methods.length, `only ${checked} cells checked`);
  assert.equal(failures, []);
});

test.run();
