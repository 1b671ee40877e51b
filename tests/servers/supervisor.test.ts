import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Supervisor } from '../../server/src/servers/supervisor';

const supervisor = (connect: () => Promise<void>) => new Supervisor({ connect, disconnect: async () => undefined, onRetry: () => undefined });

test('a caller waiting on a server not started yet (queued at start-up) gets it once it connects', async () => {
  const s = supervisor(async () => undefined);
  const waiting = s.waitConnected(5000);
  setTimeout(() => void s.start(), 50);
  await waiting; // rejects if the not-yet-started server counted as stopped
  assert.ok(true, 'resolved after start');
});

test('a caller waiting on a stopped server is told at once', async () => {
  const s = supervisor(async () => undefined);
  await s.start();
  await s.stop();
  const started = Date.now();
  await s.waitConnected(5000).then(
    () => assert.unreachable('a stopped server does not connect'),
    (err: Error) => assert.match(err.message, /stopped/),
  );
  assert.ok(Date.now() - started < 100);
});

test.run();
