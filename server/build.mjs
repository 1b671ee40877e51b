// Compiles the server into plain JavaScript: dist/main.js (what `pnpm start`
// runs) and dist/index.js (the library, as the tests and other apps import
// it). Hub's code and its dependencies are bundled and minified, which halves
// the source V8 keeps in memory and the files Node reads at start; native
// addons and optional drivers stay in node_modules.
import { build } from 'esbuild';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

await build({
  entryPoints: { main: path.join(here, 'src/main.ts'), index: path.join(here, 'src/index.ts'), cli: path.join(here, 'src/cli.ts') },
  outdir: path.join(here, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@node-rs/argon2', 'pg-native'],
  alias: { '@hub/contract': path.join(here, '../contract/src/index.ts') },
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  // Bundled CommonJS packages still call require() for Node's own modules, and some name
  // their own file (write-file-atomic's temporary names): give them this chunk's.
  banner: {
    js: [
      "import { createRequire as __hubRequire } from 'node:module';",
      "import { fileURLToPath as __hubPath } from 'node:url';",
      "import { dirname as __hubDirname } from 'node:path';",
      'const require = __hubRequire(import.meta.url);',
      'const __filename = __hubPath(import.meta.url);',
      'const __dirname = __hubDirname(__filename);',
    ].join(' '),
  },
  logLevel: 'warning',
});
