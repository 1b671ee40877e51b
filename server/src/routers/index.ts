import { router } from '../trpc/init';
import { authRouter } from './auth';
import { settingsRouter } from './settings';
import { systemRouter } from './system';
import { serversRouter } from './servers';
import { toolsRouter } from './tools';
import { groupsRouter } from './groups';
import { usersRouter } from './users';
import { keysRouter } from './keys';
import { logsRouter } from './logs';
import { monitoringRouter } from './monitoring';
import { smartRouter } from './smart';
import { pinsRouter } from './pins';
import { secretsRouter } from './secrets';
import { oidcRouter } from './oidc';

export const appRouter = router({
  system: systemRouter,
  auth: authRouter,
  settings: settingsRouter,
  servers: serversRouter,
  tools: toolsRouter,
  groups: groupsRouter,
  users: usersRouter,
  keys: keysRouter,
  logs: logsRouter,
  monitoring: monitoringRouter,
  smart: smartRouter,
  pins: pinsRouter,
  secrets: secretsRouter,
  oidc: oidcRouter,
});

export type AppRouter = typeof appRouter;
