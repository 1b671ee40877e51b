import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assignNames, exposedName } from '../../server/src/mcp/naming';

test('names are <server><separator><tool>', () => {
  assert.is(exposedName('github', 'create_issue', '-'), 'github-create_issue');
  assert.is(exposedName('github', 'create_issue', '__'), 'github__create_issue');
});

test('characters outside A-Z a-z 0-9 _ . - are replaced', () => {
  assert.is(exposedName('my server', 'do/it', '-'), 'my_server-do_it');
});

test('long names are shortened to 64 characters, deterministically and distinctly', () => {
  const server = 'a-really-long-server-name-that-goes-on-and-on';
  const a = exposedName(server, 'tool-with-a-long-name-number-one', '-');
  const b = exposedName(server, 'tool-with-a-long-name-number-two', '-');
  assert.is(a.length, 64);
  assert.is.not(a, b);
  assert.is(a, exposedName(server, 'tool-with-a-long-name-number-one', '-'));
});

test('pairs that would collide get distinct names, whatever the input order', () => {
  const pairs: Array<[string, string]> = [['a-b', 'c'], ['a', 'b-c'], ['x', 'y']];
  const one = assignNames(pairs, '-');
  const two = assignNames([...pairs].reverse(), '-');
  const names = [one.get('a-b')!.get('c')!, one.get('a')!.get('b-c')!, one.get('x')!.get('y')!];
  assert.is(new Set(names).size, 3);
  assert.equal(names, [two.get('a-b')!.get('c'), two.get('a')!.get('b-c'), two.get('x')!.get('y')]);
  assert.ok(names.every((n) => n.length <= 64));
});

test.run();
