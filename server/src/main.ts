import path from 'node:path';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { StoreLoadError } from './store/store';

async function main() {
  const config = loadConfig(process.env);
  const app = await buildApp(config);
  const { generatedAdminPassword } = app.hub.bootstrap;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // Tool calls under way finish (up to 10 s) before the servers they run on are stopped;
    // new ones are refused meanwhile.
    console.log(`${signal}: stopping; finishing the tool calls under way`);
    const left = await app.hub.services.activity.drain(10_000);
    if (left) console.log(`${left} tool calls did not finish within 10 s`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const address = await app.listen({ port: config.port, host: config.host });
  if (generatedAdminPassword) {
    // Printed once, on the first start only: the hash is all that is kept.
    console.log(`\nFirst start: created admin user "${config.adminUsername}" with password: ${generatedAdminPassword}\nChange it after logging in.\n`);
  }
  if (config.database) {
    console.log(`Settings, sessions, logs and audit in PostgreSQL (schema ${config.database.schema}); replica ${config.replicaId}; log files in ${path.join(config.dataDir, 'logs')}`);
  } else {
    console.log(`Data folder: ${config.dataDir} (settings ${config.settingsPath}, logs ${path.join(config.dataDir, 'logs')})`);
  }
  console.log(`Hub listening on ${address} (console at ${address}/)`);
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof StoreLoadError) {
    console.error(`Hub cannot start: ${err.message}`);
  } else {
    console.error('Hub failed to start:', err);
  }
  process.exit(1);
});
