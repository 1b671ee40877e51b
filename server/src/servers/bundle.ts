import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type yauzl from 'yauzl';
import { TRPCError } from '@trpc/server';
import { bundleManifest, type BundleManifest, type ServerConfig } from '@hub/contract';

export const BUNDLE_LIMITS = { compressed: 100 * 1024 * 1024, unpacked: 500 * 1024 * 1024, entries: 20_000 };

const bad = (message: string) => new TRPCError({ code: 'BAD_REQUEST', message: `mcpbFile: ${message}` });

/**
 * Unpacks an MCP bundle into `<bundlesDir>/<name>` and returns its manifest.
 * Entries are checked by yauzl (no absolute or `..` paths) and again against
 * the target folder; sizes are capped while streaming, whatever the headers
 * claim. Unpacking happens in a temporary folder renamed at the end, so a
 * refused bundle leaves nothing behind.
 */
export async function unpackBundle(
  data: Buffer,
  bundlesDir: string,
  accept: (manifest: BundleManifest) => void,
): Promise<{ manifest: BundleManifest; dir: string }> {
  if (data.length > BUNDLE_LIMITS.compressed) throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `mcpbFile: larger than ${BUNDLE_LIMITS.compressed} bytes` });
  let zip: yauzl.ZipFile;
  try {
    const { default: unzip } = await import('yauzl'); // only installs of bundles load it
    zip = await unzip.fromBufferPromise(data, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true });
  } catch (err) {
    throw bad(`not a zip archive (${(err as Error).message})`);
  }
  await mkdir(bundlesDir, { recursive: true });
  const tmp = path.join(bundlesDir, `.unpack-${randomBytes(6).toString('hex')}`);
  await mkdir(tmp);
  try {
    let total = 0;
    let count = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err) => reject(bad((err as Error).message)));
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          if (++count > BUNDLE_LIMITS.entries) throw bad(`more than ${BUNDLE_LIMITS.entries} entries`);
          const target = path.resolve(tmp, entry.fileName);
          if (!target.startsWith(tmp + path.sep)) throw bad(`entry ${entry.fileName} escapes the bundle folder`);
          if (entry.isEncrypted()) throw bad(`entry ${entry.fileName} is encrypted`);
          if (entry.fileName.endsWith('/')) {
            await mkdir(target, { recursive: true });
            return;
          }
          await mkdir(path.dirname(target), { recursive: true });
          const limiter = new Transform({
            transform(chunk: Buffer, _enc, done) {
              total += chunk.length;
              if (total > BUNDLE_LIMITS.unpacked) return done(bad(`unpacks to more than ${BUNDLE_LIMITS.unpacked} bytes`));
              done(null, chunk);
            },
          });
          const mode = (entry.externalFileAttributes >>> 16) & 0o111 ? 0o755 : 0o644;
          // `wx`: an entry never overwrites another (a duplicate name, a file where a folder is).
          await pipeline(await zip.openReadStreamPromise(entry), limiter, createWriteStream(target, { mode, flags: 'wx' }));
        })().then(
          () => zip.readEntry(),
          // Whatever the filesystem says of a malformed bundle (a file and a folder of the
          // same name, `d` and `d/x`), it is the bundle's fault: a 400, never a 500.
          (err) => reject(err instanceof TRPCError ? err : bad(`entry ${entry.fileName} cannot be unpacked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)),
        );
      });
      zip.readEntry();
    });
    let manifest: BundleManifest;
    try {
      const raw = JSON.parse(await readFile(path.join(tmp, 'manifest.json'), 'utf8'));
      const parsed = bundleManifest.safeParse(raw);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        throw bad(`manifest.json ${i.path.join('.')}: ${i.message}`);
      }
      manifest = parsed.data;
    } catch (err) {
      if (err instanceof TRPCError) throw err;
      throw bad(`manifest.json is missing or not JSON`);
    }
    accept(manifest);
    const dir = bundleDir(bundlesDir, manifest.name);
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
    return { manifest, dir };
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    zip.close();
  }
}

/**
 * `<bundlesDir>/<name>`, refusing any name that would resolve elsewhere
 * (`.`, `..`): the folder is replaced, so it must be the bundle's own.
 */
export function bundleDir(bundlesDir: string, name: string): string {
  const root = path.resolve(bundlesDir);
  const dir = path.resolve(root, name);
  if (path.dirname(dir) !== root || name.includes('/') || name.includes('\\')) throw bad(`manifest.json name: ${name} is not a folder name`);
  return dir;
}

/** The server configuration a bundle asks for, with `${__dirname}` and user_config defaults filled in. */
export function bundleServerConfig(manifest: BundleManifest, dir: string): ServerConfig {
  const fill = (s: string) =>
    s.replace(/\$\{__dirname\}/g, dir).replace(/\$\{user_config\.([A-Za-z0-9_]+)\}/g, (m, key: string) => {
      const userConfig = manifest.user_config ?? {};
      const def = Object.hasOwn(userConfig, key) ? userConfig[key]?.default : undefined;
      return def === undefined ? m : String(def);
    });
  const cfg = manifest.server.mcp_config;
  return {
    type: 'stdio',
    command: fill(cfg.command),
    args: cfg.args.map(fill),
    ...(cfg.env ? { env: Object.fromEntries(Object.entries(cfg.env).map(([k, v]) => [k, fill(v)])) } : {}),
    description: manifest.description,
  };
}
