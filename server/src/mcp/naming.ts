import { createHash } from 'node:crypto';

const MAX = 64;

function shortHash(s: string): string {
  return createHash('sha1').update(s).digest('hex').slice(0, 8);
}

function clean(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * `<prefix><sep><name>` (the prefix is the server name unless configured; an
 * empty prefix exposes the name as it is), cleaned to MCP's safe characters
 * and at most 64 long (a hash keeps shortened names unique).
 */
export function exposedName(server: string, name: string, sep: string): string {
  const full = clean(server === '' ? name : `${server}${sep}${name}`);
  if (full.length <= MAX) return full;
  return `${full.slice(0, MAX - 9)}_${shortHash(`${server}\u0000${name}`)}`;
}

/**
 * Names for every (server, item) pair, deterministic and collision-free:
 * pairs are named in sorted order and a later pair that collides gets a hash.
 */
export function assignNames(
  pairs: Array<[server: string, name: string]>,
  sep: string,
  prefixOf: (server: string) => string = (s) => s,
): Map<string, Map<string, string>> {
  const sorted = [...pairs].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  const taken = new Set<string>();
  const out = new Map<string, Map<string, string>>();
  for (const [server, item] of sorted) {
    let name = exposedName(prefixOf(server), item, sep);
    if (taken.has(name)) name = `${name.slice(0, MAX - 9)}_${shortHash(`${server}\u0000${item}\u0000dup`)}`;
    taken.add(name);
    let m = out.get(server);
    if (!m) out.set(server, (m = new Map()));
    m.set(item, name);
  }
  return out;
}
