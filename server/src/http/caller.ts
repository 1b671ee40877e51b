import { appRouter } from '../routers';
import { createCallerFactory } from '../trpc/init';

/** Server-side calls of procedures, as the REST adapter makes them. */
export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;
