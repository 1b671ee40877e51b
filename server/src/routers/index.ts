import { router } from '../trpc/init';
import { authRouter } from './auth';
import { settingsRouter } from './settings';
import { systemRouter } from './system';

export const appRouter = router({
  system: systemRouter,
  auth: authRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
