import { createTRPCClient, createWSClient, wsLink, TRPCClientError } from '@trpc/client';
import WebSocket from 'ws';
import type { AppRouter } from '@hub/server';

/** A typed tRPC client over WebSocket, as another TypeScript app would make one. */
export function wsClient(baseUrl: string, token?: string) {
  const ws = createWSClient({
    url: baseUrl.replace(/^http/, 'ws') + '/trpc',
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    connectionParams: token ? { token } : {},
    retryDelayMs: () => 200,
  });
  const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
  return { client, close: () => ws.close() };
}

export function isTRPCError(err: unknown): err is TRPCClientError<AppRouter> {
  return err instanceof TRPCClientError;
}
