/**
 * Tasks (protocol 2025-11-25) through Hub, against server-everything's
 * task-based tool: started with a task-augmented tools/call, polled, read,
 * listed and cancelled by Hub's own ids, and invisible to other callers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ListTasksResultSchema, CancelTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let owner: Client;
let other: Client;

const start = (c: Client) =>
  c.request({ method: 'tools/call', params: { name: 'everything-simulate-research-query', arguments: { topic: 'tides' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
const get = (c: Client, taskId: string) => c.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);

test.before(async () => {
  hub = await startHub();
  const token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'everything', config: stdioEverything() } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/everything', { token })).body.data.status === 'connected', 20_000, 'everything connected');
  await hub.request('POST', '/api/users', { token, body: { username: 'other', password: 'other-pass-123', role: 'admin' } });
  owner = await agent(`${hub.url}/mcp`, { token });
  other = await agent(`${hub.url}/mcp`, { token: await hub.login('other', 'other-pass-123') });
});
test.after(async () => {
  await owner.close();
  await other.close();
  await hub.close();
});

test('Hub offers tasks when an upstream does, and the task-based tool is listed with its execution mode', async () => {
  assert.ok(owner.getServerCapabilities()?.tasks?.requests?.tools?.call);
  const tool = (await owner.listTools()).tools.find((t) => t.name === 'everything-simulate-research-query');
  assert.is((tool as { execution?: { taskSupport?: string } }).execution?.taskSupport, 'required');
});

test('a task started through Hub is polled and read by Hub\'s id, and listed for its owner only', async () => {
  const { task } = await start(owner);
  assert.match(task.taskId, /^task-/, 'Hub\'s own id, not the upstream\'s');
  const done = await waitFor(async () => {
    const t = await get(owner, task.taskId);
    assert.is(t.taskId, task.taskId);
    return t.status === 'completed' && t;
  }, 15_000, 'the task to complete');
  assert.is(done.status, 'completed');
  const result = await owner.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
  assert.match(JSON.stringify(result.content), /tides/);
  const mine = await owner.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  assert.ok(mine.tasks.some((t) => t.taskId === task.taskId));
  const theirs = await other.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  assert.not.ok(theirs.tasks.some((t) => t.taskId === task.taskId));
  const err = await get(other, task.taskId).catch((e) => e);
  assert.is(err.code, -32602, 'another caller is told it does not exist');
});

test('a task is cancelled on its upstream through Hub', async () => {
  const { task } = await start(owner);
  const cancelled = await owner.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, CancelTaskResultSchema);
  assert.is(cancelled.taskId, task.taskId);
  assert.is((await get(owner, task.taskId)).status, 'cancelled');
});

test.run();
