import yazl from 'yazl';

/** A zip archive of the given entries (names ending in / are folders). */
export function zip(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) {
    if (name.endsWith('/')) z.addEmptyDirectory(name.slice(0, -1));
    else z.addBuffer(Buffer.from(content), name);
  }
  z.end();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** An MCP bundle whose server is a stdio command, for upload tests. */
export const bundle = (name: string, extra: Record<string, string | Buffer> = {}) =>
  zip({
    'manifest.json': JSON.stringify({ manifest_version: '0.2', name, version: '1.0.0', server: { type: 'node', entry_point: 'x.mjs', mcp_config: { command: process.execPath, args: ['${__dirname}/x.mjs'] } } }),
    'x.mjs': '',
    ...extra,
  });
