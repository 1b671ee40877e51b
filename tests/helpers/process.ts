import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export type Started = { child: ChildProcess; output: () => string; url: string };

/** Starts the compiled Hub the way `pnpm start` does (after its build) and waits for its address. */
export function startMain(env: Record<string, string>, timeoutMs = 20_000): Promise<Started> {
  const child = spawn(process.execPath, ['server/dist/main.js'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no address in time:\n${out}`))), timeoutMs);
    const check = () => {
      const m = /Hub listening on (\S+) /.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, output: () => out, url: m[1]! });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code}:\n${out}`), { code, output: out }));
    });
  });
}

export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/** Runs main.ts expecting it to refuse to start; returns its exit code and output. */
export async function failedStart(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const started = await startMain(env);
    await stop(started.child);
    throw new Error('Hub started but was expected to refuse');
  } catch (err) {
    const e = err as { code?: number; output?: string };
    if (e.output === undefined) throw err;
    return { code: e.code ?? -1, output: e.output };
  }
}
