/**
 * Runs every tests/**\/*.test.ts file in its own process (isolation, and a
 * crash counts as a failure), two at a time, and ends with the one summary
 * line CI reads: `N passed, N failed`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.dirname(new URL(import.meta.url).pathname);
const filter = process.argv[2];
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);
const fileTimeoutMs = 10 * 60_000;

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') return [];
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

type Result = { file: string; passed: number; failed: number; output: string; ms: number };

function runFile(file: string): Promise<Result> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: path.dirname(root),
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n[runner] ${file} timed out after ${fileTimeoutMs / 1000}s\n`;
      child.kill('SIGKILL');
    }, fileTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
      const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
      let result: Result;
      if (Number.isNaN(total) || Number.isNaN(passed)) {
        result = { file, passed: 0, failed: 1, output: output + `\n[runner] no uvu summary (exit ${code}): counted as one failure\n`, ms: 0 };
      } else {
        // A file that reported all passed but exited non-zero still failed somewhere.
        const failed = total - passed || (code === 0 ? 0 : 1);
        result = { file, passed, failed, output, ms: 0 };
      }
      result.ms = Date.now() - started;
      resolve(result);
    });
  });
}

const files = findTests(root)
  .filter((f) => !filter || f.includes(filter))
  .sort();
const queue = [...files];
const results: Result[] = [];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const r = await runFile(file);
      results.push(r);
      const rel = path.relative(path.dirname(root), r.file);
      const mark = r.failed ? 'FAIL' : 'ok  ';
      console.log(`${mark} ${rel}  (${r.passed} passed, ${r.failed} failed, ${(r.ms / 1000).toFixed(1)}s)`);
      if (r.failed || process.env.TEST_VERBOSE) console.log(r.output.replace(/^/gm, '    '));
    }
  }),
);
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;
