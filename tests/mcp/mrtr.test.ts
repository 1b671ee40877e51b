import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ParkedCalls } from '../../server/src/mcp/mrtr';

test('a parked call resumes only for the caller it was parked for, and only once', async () => {
  const parked = new ParkedCalls();
  const first = (await parked.start('ada', async (ask) => {
    const answer = (await ask({ method: 'elicitation/create', params: { message: 'name?' } })) as { content: { name: string } };
    return { content: [{ type: 'text', text: `hello ${answer.content.name}` }] };
  })) as { resultType: string; requestState: string; inputRequests: Record<string, { method: string }> };
  assert.is(first.resultType, 'input_required');
  assert.is(first.inputRequests.input!.method, 'elicitation/create');
  assert.throws(() => parked.resume('mallory', first.requestState, { input: { action: 'accept', content: { name: 'x' } } }), /requestState/);
  assert.throws(() => parked.resume('ada', first.requestState, {}), /inputResponses\.input/);
  const done = await parked.resume('ada', first.requestState, { input: { action: 'accept', content: { name: 'Ada' } } });
  assert.equal(done, { content: [{ type: 'text', text: 'hello Ada' }] });
  assert.throws(() => parked.resume('ada', first.requestState, { input: {} }), /unknown or expired/);
});

test('a call that fails after its input fails for the caller', async () => {
  const parked = new ParkedCalls();
  const first = (await parked.start('ada', async (ask) => {
    await ask({ method: 'roots/list' });
    throw new Error('upstream went away');
  })) as { requestState: string };
  await parked.resume('ada', first.requestState, { input: { roots: [] } }).then(
    () => assert.unreachable('resolved'),
    (err: Error) => assert.match(err.message, /went away/),
  );
});

test.run();
