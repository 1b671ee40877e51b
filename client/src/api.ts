import { createTRPCClient, createWSClient, wsLink, type TRPCClient } from '@trpc/client';
import { createResource, createRoot, createSignal } from 'solid-js';
import type { Permission } from '@hub/contract';
import type { AppRouter } from '@hub/server';

const TOKEN_KEY = 'hub.token';
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/trpc`;

export type Api = TRPCClient<AppRouter>;

const [token, setTokenSignal] = createSignal<string | null>(localStorage.getItem(TOKEN_KEY));
const [connected, setConnected] = createSignal(false);
// Bumped on every reconnect: resources keyed on it refetch, so pages resync after a dropped socket.
const [epoch, setEpoch] = createSignal(1);
export { token, connected, epoch };

let ws: ReturnType<typeof createWSClient> | null = null;
let client: Api | null = null;
let pendingToken: string | null = token();

function open(): Api {
  ws?.close();
  // Events of a socket being replaced must not flip the state of the new one.
  const mine = createWSClient({
    url: wsUrl,
    // Read on every (re)connect so a new login takes effect without a reload.
    connectionParams: () => ({ token: pendingToken ?? '' }),
    retryDelayMs: (attempt) => Math.min(500 * 2 ** attempt, 10_000),
    onOpen: () => {
      if (ws !== mine) return;
      if (!connected()) setEpoch((n) => n + 1);
      setConnected(true);
    },
    onClose: () => {
      if (ws === mine) setConnected(false);
    },
  });
  ws = mine;
  client = createTRPCClient<AppRouter>({ links: [wsLink({ client: mine })] });
  return client;
}

/** The one tRPC client of the console; reopened when the session changes. */
export function api(): Api {
  return client ?? open();
}

export function setToken(next: string | null) {
  if (next) localStorage.setItem(TOKEN_KEY, next);
  else localStorage.removeItem(TOKEN_KEY);
  pendingToken = next;
  open();
  // Reconnect first so anything reacting to the new token already uses the new connection.
  setTokenSignal(next);
}

/** True when the API refused the session itself (not a dropped connection). */
export function isUnauthorized(err: unknown): boolean {
  return (err as { data?: { code?: string } })?.data?.code === 'UNAUTHORIZED';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * What the signed-in caller may do (`auth.permissions`), refetched on every
 * sign-in and reconnect: pages show only the controls it allows.
 */
export const permissions = createRoot(() => createResource(() => [token(), epoch()] as const, () => api().auth.permissions.query().catch(() => null))[0]);

/** True once the caller's permissions are known and include `p`. */
export const can = (p: Permission): boolean => Boolean(permissions()?.permissions.includes(p));
