import { z } from 'zod';
import { secretName, setSecretInput } from '@hub/contract';
import { audited, authedProcedure, router } from '../trpc/init';

/** One of the caller's own API keys, whose values are managed instead of the caller's. */
const keyId = z.string().min(1).max(200).optional();

/** The caller's own upstream credentials (`${user.secret.NAME}`): set and removed, never read back. */
export const secretsRouter = router({
  list: authedProcedure.input(z.object({ keyId }).optional()).query(({ ctx, input }) => ctx.services.secrets.list(ctx.principal, input?.keyId)),
  // Audited by name (never the value): who changed which of their credentials.
  set: authedProcedure.use(audited('config_change')).input(setSecretInput.extend({ keyId }))
    .mutation(({ ctx, input }) => ctx.services.secrets.set(ctx.principal, input.name, input.value, input.keyId)),
  remove: authedProcedure.use(audited('config_change')).input(z.object({ name: secretName, keyId }))
    .mutation(({ ctx, input }) => ctx.services.secrets.remove(ctx.principal, input.name, input.keyId)),
});
