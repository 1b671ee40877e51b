import { z } from 'zod';
import { secretName, setSecretInput } from '@hub/contract';
import { audited, authedProcedure, router } from '../trpc/init';

/** The caller's own upstream credentials (`${user.secret.NAME}`): set and removed, never read back. */
export const secretsRouter = router({
  list: authedProcedure.query(({ ctx }) => ctx.services.secrets.list(ctx.principal)),
  // Audited by name (never the value): who changed which of their credentials.
  set: authedProcedure.use(audited('config_change')).input(setSecretInput).mutation(({ ctx, input }) => ctx.services.secrets.set(ctx.principal, input.name, input.value)),
  remove: authedProcedure.use(audited('config_change')).input(z.object({ name: secretName })).mutation(({ ctx, input }) => ctx.services.secrets.remove(ctx.principal, input.name)),
});
