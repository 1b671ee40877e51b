/** The README's typed-client snippet, as another TypeScript app on Node 20 writes it. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import WebSocket from 'ws';
import type { AppRouter } from '@hub/server/router';
import { startHub, type TestHub } from '../helpers/hub';

let hub: TestHub;
test.before(async () => {
  hub = await startHub();
});
test.after(() => hub.close());

test('the README snippet lists servers over the WebSocket with the router type from @hub/server/router', async () => {
  const token = await hub.login();
  const ws = createWSClient({ url: hub.url.replace(/^http/, 'ws') + '/trpc', WebSocket: WebSocket as never, connectionParams: { token } });
  const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
  const servers = await client.servers.list.query();
  assert.ok(Array.isArray(servers));
  ws.close();
});

test.run();
