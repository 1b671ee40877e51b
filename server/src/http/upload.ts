import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BusboyHeaders } from '@fastify/busboy';

export type Upload = { file: Buffer } | { error: string; status: number };

/**
 * Leaves multipart bodies unread until a route asks for its file: the parser
 * (busboy) is loaded by the first upload, not at start.
 */
export function acceptMultipart(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
}

/** The one file of a multipart upload, from the named field, at most `maxBytes`. */
export async function readUpload(req: FastifyRequest, field: string, maxBytes: number): Promise<Upload> {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return { error: `${field}: send the file as multipart/form-data`, status: 400 };
  const { default: Busboy } = await import('@fastify/busboy');
  return new Promise<Upload>((resolve) => {
    let settled = false;
    const done = (r: Upload) => {
      if (settled) return;
      settled = true;
      if ('error' in r) req.raw.unpipe().resume(); // drain what is left so the answer goes out
      resolve(r);
    };
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({ headers: req.headers as BusboyHeaders, limits: { fileSize: maxBytes, files: 1, fields: 10 } });
    } catch (err) {
      return done({ error: `${field}: ${(err as Error).message}`, status: 400 });
    }
    let file: Promise<Buffer | 'too large'> | undefined;
    parser.on('file', (name, stream) => {
      if (name !== field || file) return void stream.resume();
      file = new Promise((ok) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => ok(stream.truncated ? 'too large' : Buffer.concat(chunks)));
      });
    });
    parser.on('error', (err: Error) => done({ error: `${field}: ${err.message}`, status: 400 }));
    parser.on('finish', async () => {
      const got = await file;
      if (got === undefined) return done({ error: `${field}: is required (multipart file field)`, status: 400 });
      if (got === 'too large') return done({ error: `${field}: file too large`, status: 413 });
      done({ file: got });
    });
    req.raw.pipe(parser);
  });
}
