import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { repoRoot } from '../helpers/process';
import { conformance } from '../helpers/conformance';

const baseline = path.join(repoRoot, 'tests/mcp/conformance-baseline.yml');
let hub: TestHub;

test.before(async () => {
  hub = await startHub();
  const token = await hub.login();
  // The suite cannot send a token; MCP bearer auth is covered by the route tests.
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableBearerAuth: false } } });
  await hub.request('POST', '/api/servers', {
    token,
    body: { name: 'conf', config: { command: process.execPath, args: [fixture('conformance.mjs')], namePrefix: '' } },
  });
  await waitFor(async () => (await hub.request('GET', '/api/servers/conf', { token })).body.data.status === 'connected', 15_000, 'fixture connected');
});
test.after(() => hub.close());

function runSuite(url: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const { command, args } = conformance(['server', '--url', url, '--expected-failures', baseline]);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

test('the MCP conformance suite passes against Hub fronting a fixture server (baseline of expected failures)', async () => {
  const { code, output } = await runSuite(`${hub.url}/mcp/conf`);
  const summary = /Total: (\d+) passed, (\d+) failed/.exec(output);
  // Keep the suite's own summary lines from looking like ours.
  console.log(output.replace(/Total: (\d+) passed, (\d+) failed/g, 'conformance totals: $1 ok, $2 not ok').replace(/(\d+) passed, (\d+) failed/g, '$1 ok, $2 not ok'));
  assert.ok(summary, 'the suite printed its totals');
  assert.is(code, 0, 'no failure outside the baseline');
});

test.run();
