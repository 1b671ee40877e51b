import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { settingsFileSchema } from '@hub/contract';
import { ConfigError, loadConfig } from './config';
import { openDatabase } from './store/pg-schema';
import { PgStore } from './store/pg-store';
import { migrateLegacyKeys } from './store/migrate';
import { withSafeMaps } from './store/safe-maps';

const usage = `Usage:
  pnpm hub import-settings <file>   load an mcp_settings.json into the database named by DATABASE_URL (replaces its settings)
  pnpm hub export-settings [file]   write the database's settings as mcp_settings.json (to stdout without a file)
  pnpm hub migrate                  create or update Hub's tables in the database`;

/** Operations on a Hub's PostgreSQL database, run beside (or without) running replicas. */
async function main(argv: string[]): Promise<number> {
  const [command, file] = argv;
  if (!command || !['import-settings', 'export-settings', 'migrate'].includes(command)) {
    console.error(usage);
    return 2;
  }
  const config = loadConfig(process.env);
  if (!config.database) {
    console.error(`DATABASE_URL is not set: this Hub keeps its settings in ${config.settingsPath}, which is already an mcp_settings.json.`);
    return 2;
  }
  const db = await openDatabase(config.database.url, config.database.schema, 2);
  try {
    if (command === 'migrate') {
      console.log(`Schema "${config.database.schema}" is up to date.`);
      return 0;
    }
    const store = await PgStore.open(db, { replica: `cli-${process.pid}`, pollMs: 60_000 });
    if (command === 'export-settings') {
      const text = JSON.stringify(store.get(), null, 2) + '\n';
      if (file) await writeFile(file, text, { mode: 0o600 });
      else process.stdout.write(text);
      if (file) console.error(`Wrote the settings to ${path.resolve(file)} (it holds secrets: keep it private).`);
      await store.close();
      return 0;
    }
    if (!file) {
      console.error(usage);
      return 2;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      console.error(`Cannot read ${file}: ${(err as Error).message}`);
      return 1;
    }
    const parsed = settingsFileSchema.safeParse(migrateLegacyKeys(raw));
    if (!parsed.success) {
      console.error(`${file} is not a valid settings file: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
      return 1;
    }
    const next = withSafeMaps(parsed.data);
    await store.update((draft) => {
      for (const key of Object.keys(draft) as Array<keyof typeof draft>) delete draft[key];
      Object.assign(draft, structuredClone(next));
    });
    await store.close();
    const s = store.get();
    console.log(`Imported ${file}: ${Object.keys(s.mcpServers).length} servers, ${s.groups.length} groups, ${s.users.length} users. Running replicas pick it up at once.`);
    return 0;
  } finally {
    await db.pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : `Failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
