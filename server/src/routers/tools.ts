import { z } from 'zod';
import { nameRef } from '@hub/contract';
import { authorize, publicProcedure, requires, router } from '../trpc/init';

const args = z.record(z.string(), z.unknown()).default({});
const call = z.object({
  server: nameRef,
  toolName: nameRef,
  arguments: args,
  /** Keeps upstream session state across calls (REST `x-session-id`). */
  sessionId: z.string().min(1).max(200).optional(),
});

export const toolsRouter = router({
  callTool: requires('tools:execute')
    .input(call)
    .mutation(({ ctx, input }) => ctx.services.tools.call(ctx.principal, input.server, input.toolName, input.arguments, input.sessionId)),
  /**
   * For OpenAPI-compatible clients: open without a token, as MCPHub's contract
   * has it (enable flags still apply), unless `routing.openToolRoutes` is false:
   * then it is `callTool` with the caller's credential and access.
   */
  callOpen: publicProcedure.input(call).mutation(async ({ ctx, input }) => {
    if (ctx.services.settings.routing().openToolRoutes) return ctx.services.tools.call(null, input.server, input.toolName, input.arguments);
    const principal = await authorize(ctx, 'tools:execute');
    return ctx.services.tools.call(principal, input.server, input.toolName, input.arguments);
  }),
  openapi: publicProcedure.query(({ ctx }) => ctx.services.tools.openApiDocument(ctx.services.publicUrl(), ctx.services.config.version)),
  getPrompt: requires('prompts:execute')
    .input(z.object({ server: nameRef, prompt: nameRef, arguments: z.record(z.string(), z.string()).default({}) }))
    .mutation(({ ctx, input }) => ctx.services.tools.getPrompt(ctx.principal, input.server, input.prompt, input.arguments)),
});
