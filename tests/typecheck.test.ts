import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './helpers/process';

const tsc = path.join(repoRoot, 'node_modules/.bin/tsc');

test('server, contract, tests and bench type-check in strict mode', () => {
  const r = spawnSync(tsc, ['-p', 'tsconfig.json', '--noEmit'], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
});

test('the console type-checks against the server router type (the typed client)', () => {
  const r = spawnSync(tsc, ['-p', 'client/tsconfig.json', '--noEmit'], { cwd: repoRoot, encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
});

test.run();
