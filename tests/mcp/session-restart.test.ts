import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { startMain, stop } from '../helpers/process';
import { freePort } from '../helpers/cluster';

async function hubAt(dir: string, port: number) {
  return startMain({ PORT: String(port), MCPHUB_SETTING_PATH: path.join(dir, 'mcp_settings.json'), AUTH_USERNAME: ADMIN.username, AUTH_PASSWORD: ADMIN.password });
}

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`a single Hub stopped by ${signal} and started again: the agent's session goes on without a new initialize`, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hub-restart-'));
    const port = await freePort();
    let hub = await hubAt(dir, port);
    const login = await fetch(`${hub.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    const { token } = (await login.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${hub.url}/api/servers`, { method: 'POST', headers, body: JSON.stringify({ name: 'dyn', config: { command: process.execPath, args: [fixture('dynamic.mjs')] } }) });
    const connected = async () => ((await (await fetch(`${hub.url}/api/servers`, { headers })).json()) as { data: Array<{ status: string }> }).data[0]?.status === 'connected';
    await waitFor(connected, 15_000, 'dyn connected');

    const transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'agent', version: '1' });
    let initializes = 0;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ('method' in message && message.method === 'initialize') initializes++;
      return send(message, options);
    };
    await client.connect(transport);
    const id = transport.sessionId;
    assert.not.ok((await client.callTool({ name: 'dyn-last-cancel', arguments: {} })).isError);
    await new Promise((r) => setTimeout(r, 200)); // the session record reaches the disk
    await stop(hub.child, signal);

    hub = await hubAt(dir, port);
    await waitFor(connected, 15_000, 'dyn connected again');
    const result = await client.callTool({ name: 'dyn-last-cancel', arguments: {} });
    assert.not.ok(result.isError, JSON.stringify(result));
    assert.is(transport.sessionId, id);
    assert.is(initializes, 1);
    // An ended session stays ended across a restart.
    await transport.terminateSession();
    await stop(hub.child);
    hub = await hubAt(dir, port);
    const res = await fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json, text/event-stream', 'mcp-session-id': id! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    assert.is(res.status, 404);
    await stop(hub.child);
  });
}

test.run();
