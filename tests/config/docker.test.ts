/**
 * The Dockerfile and docker-compose.yml stay valid without a Docker daemon:
 * parsed, and checked for what they promise (multi-stage, non-root, health
 * check on /health, the data folder a volume, files that exist).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/process';

type Instruction = { op: string; args: string; stage: number };

/** Dockerfile instructions, with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  let stage = -1;
  return joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([A-Za-z]+)\s+(.*)$/.exec(l);
      if (!m) throw new Error(`not an instruction: ${l}`);
      const op = m[1]!.toUpperCase();
      if (op === 'FROM') stage++;
      return { op, args: m[2]!, stage };
    });
}

const known = new Set(['FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL']);

test('the Dockerfile builds in stages and runs the bundle as a non-root user, with a health check and the data folder a volume', () => {
  const all = instructions(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
  for (const i of all) assert.ok(known.has(i.op), `unknown instruction ${i.op}`);
  const froms = all.filter((i) => i.op === 'FROM');
  assert.ok(froms.length >= 2, 'not multi-stage');
  const buildStage = / AS (\w+)/i.exec(froms[0]!.args)?.[1];
  assert.ok(buildStage, 'the first stage has no name');
  const final = all.filter((i) => i.stage === froms.length - 1);
  const user = final.filter((i) => i.op === 'USER').at(-1);
  assert.ok(user && !/^(root|0)(:|$)/.test(user.args), 'the final stage runs as root');
  assert.match(final.find((i) => i.op === 'HEALTHCHECK')?.args ?? '', /\/health/);
  const env = final.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
  const settings = /MCPHUB_SETTING_PATH=(\S+)/.exec(env)?.[1];
  assert.ok(settings, 'MCPHUB_SETTING_PATH is not set');
  assert.match(final.find((i) => i.op === 'VOLUME')?.args ?? '', new RegExp(path.dirname(settings!)));
  assert.match(env, /HOST=0\.0\.0\.0/);
  assert.match(final.find((i) => i.op === 'CMD')?.args ?? '', /server\/dist\/main\.js/);
  // Everything copied from the build context exists; what is copied from the build stage, it makes.
  for (const c of all.filter((i) => i.op === 'COPY')) {
    const parts = c.args.split(/\s+/);
    const from = parts.find((p) => p.startsWith('--from='));
    const sources = parts.filter((p) => !p.startsWith('--')).slice(0, -1);
    if (from) assert.is(from, `--from=${buildStage}`);
    else for (const s of sources) assert.ok(existsSync(path.join(repoRoot, s)), `COPY ${s}: no such file`);
  }
  assert.ok(all.some((i) => i.stage === 0 && i.op === 'RUN' && /pnpm build/.test(i.args)), 'the build stage does not build');
});

test('docker-compose.yml runs Hub beside PostgreSQL, Hub waiting for a healthy database', () => {
  const doc = parse(readFileSync(path.join(repoRoot, 'docker-compose.yml'), 'utf8'));
  const { hub, postgres } = doc.services;
  assert.ok(hub && postgres, 'services hub and postgres');
  assert.is(hub.build, '.');
  assert.equal(hub.depends_on.postgres, { condition: 'service_healthy' });
  assert.ok(postgres.healthcheck?.test, 'postgres has no health check');
  assert.match(hub.environment.DATABASE_URL, /^postgres:\/\/\w+:\w+@postgres:5432\/\w+$/);
  assert.ok(hub.volumes.some((v: string) => v.endsWith(':/data')), 'the data folder is not a volume');
  for (const v of [...hub.volumes, ...postgres.volumes]) assert.ok(v.split(':')[0] in doc.volumes, `volume ${v} is not declared`);
  assert.ok(hub.ports.includes('3000:3000'));
});

test('deploy/replicas runs three replicas on one PostgreSQL behind an HAProxy whose configuration is valid', () => {
  const dir = path.join(repoRoot, 'deploy/replicas');
  const doc = parse(readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8'), { merge: true });
  const hubs = Object.entries(doc.services as Record<string, any>).filter(([name]) => /^hub\d$/.test(name));
  assert.is(hubs.length, 3);
  const urls = new Set(hubs.map(([, s]) => s.environment.DATABASE_URL));
  assert.is(urls.size, 1, 'the replicas share one database');
  assert.match([...urls][0], /@postgres:5432\//);
  assert.is(new Set(hubs.map(([, s]) => s.environment.HUB_REPLICA_ID)).size, 3, 'each replica has its own id');
  for (const [, s] of hubs) assert.equal(s.depends_on.postgres, { condition: 'service_healthy' });
  const cfg = readFileSync(path.join(dir, 'haproxy.cfg'), 'utf8');
  for (const [name] of hubs) assert.match(cfg, new RegExp(`server \\w+ ${name}:3000 check`));
  assert.ok(doc.services.haproxy.volumes.some((v: string) => v.startsWith('./haproxy.cfg:')));
  // Debian's haproxy checks the file as the image would load it (names resolve at run time).
  execFileSync('haproxy', ['-c', '-q', '-f', path.join(dir, 'haproxy.cfg')]);
});

test.run();
