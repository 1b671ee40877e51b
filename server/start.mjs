// `pnpm start`: builds what changed since the last build (the server with
// esbuild, the console with Vite), each in a child process, then runs the
// compiled server in this process. Nothing here loads a compiler unless a
// build is due, so a second start goes straight to the server.
// `node server/start.mjs --build-only` builds and exits (`pnpm build`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const at = (...p) => path.join(root, ...p);

/** Paths, sizes and modification times of every file of the sources: cheap to take, changes with any edit. */
function fingerprint(sources) {
  const hash = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) if (name !== 'node_modules' && name !== 'dist') walk(path.join(p, name));
    } else hash.update(`${p}\0${st.size}\0${st.mtimeMs}\n`);
  };
  sources.forEach(walk);
  return hash.digest('hex');
}

const targets = [
  {
    name: 'server',
    stamp: at('server/dist/.built'),
    sources: [at('server/src'), at('server/build.mjs'), at('server/package.json'), at('contract/src'), at('pnpm-lock.yaml')],
    build: [process.execPath, [at('server/build.mjs')]],
  },
  {
    name: 'console',
    stamp: at('client/dist/.built'),
    sources: [at('client/src'), at('client/index.html'), at('client/vite.config.ts'), at('client/package.json'), at('contract/src'), at('pnpm-lock.yaml')],
    build: [process.execPath, [at('client/node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: at('client') }],
  },
];

for (const t of targets) {
  const now = fingerprint(t.sources);
  if (existsSync(t.stamp) && readFileSync(t.stamp, 'utf8') === now) continue;
  console.log(`Building the ${t.name}…`);
  const [cmd, args, opts] = t.build;
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`Building the ${t.name} failed`);
    process.exit(1);
  }
  writeFileSync(t.stamp, now);
}

if (!process.argv.includes('--build-only')) await import('./dist/main.js');
