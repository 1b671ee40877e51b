import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers/process';
import { conformance } from '../helpers/conformance';

// Hub as the client of every conformance client scenario (OAuth flows among them):
// tests/fixtures/hub-client.mjs starts a Hub, adds the scenario's server, authorizes
// it as an operator would, and drives it as an agent through Hub.
const driver = path.join(repoRoot, 'tests/fixtures/hub-client.mjs');
const baseline = path.join(repoRoot, 'tests/mcp/conformance-client-baseline.yml');

test('every conformance client scenario passes with Hub as the client (baseline of expected failures)', async () => {
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    const { command, args } = conformance(['client', '--command', `${process.execPath} ${driver}`, '--suite', 'all', '--timeout', '60000', '--expected-failures', baseline]);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (c) => resolve({ code: c ?? -1, output }));
  });
  const summary = output.slice(output.indexOf('=== SUITE SUMMARY ==='));
  // Keep the suite's own totals from looking like ours.
  console.log(summary.replace(/(\d+) passed, (\d+) failed/g, '$1 ok, $2 not ok').replace(/Total:/g, 'suite totals:'));
  assert.ok(/Total: \d+ passed, 0 failed/.test(summary), 'every check passed');
  assert.ok(summary.includes('auth/cross-app-access-complete-flow'), 'the whole suite ran (26 scenarios)');
  assert.is(code, 0, 'no failure outside the baseline');
});

test.run();
