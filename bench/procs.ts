import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function start(command: string, args: string[], env: Record<string, string>, ready: RegExp, timeoutMs = 30_000) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise<{ child: ChildProcess; output: () => string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), timeoutMs);
    const on = (d: Buffer) => {
      out += d;
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** CPU time (user + system) of one process, in milliseconds, from /proc. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

/**
 * How `pnpm start` runs Hub (its node flags and environment, read from the
 * root package.json), so benches measure the production process.
 */
export function hubCommand(root: string): { args: string[]; env: Record<string, string> } {
  const script: string = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).scripts.start;
  const words = script.split(/\s+/);
  const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split('=') as [string, string]));
  return { args: [...words.filter((w) => w.startsWith('--')), `${root}/server/dist/main.js`], env };
}
