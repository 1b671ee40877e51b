import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** Serves the built console; unknown non-API GETs get index.html so client-side routes load. */
export async function consolePlugin(app: FastifyInstance, opts: { dir: string }) {
  const index = path.join(opts.dir, 'index.html');
  if (!existsSync(index)) {
    app.get('/', async (_req, reply) =>
      reply.type('text/plain').send('Hub is running. The console is not built: run `pnpm run build`.'),
    );
    return;
  }
  const html = readFileSync(index, 'utf8');
  await app.register(fastifyStatic, { root: opts.dir, wildcard: false, index: false });
  app.get('/', async (_req, reply) => reply.type('text/html').send(html));
}

/** The console's index.html, served for client-side routes; null when not built. */
export function consoleHtml(dir: string): string | null {
  const index = path.join(dir, 'index.html');
  return existsSync(index) ? readFileSync(index, 'utf8') : null;
}
