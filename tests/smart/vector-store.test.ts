import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite/vector';
import { SqlVectorStore } from '../../server/src/smart/vector-store';

test('with pgvector (a real one, in PGlite) vectors are stored as vector and the database ranks them', async () => {
  const db = await PGlite.create({ extensions: { vector } });
  const store = new SqlVectorStore(db as never);
  await store.save('m', [['a', [1, 0, 0]], ['b', [0, 1, 0]], ['c', [0.7, 0.7, 0]]], new Set(['a', 'b', 'c']));
  assert.is(store.kind, 'pgvector');
  const type = await db.query<{ t: string }>("SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'hub_tool_embeddings'::regclass AND attname = 'embedding'");
  assert.is(type.rows[0]!.t, 'vector');
  const near = await store.nearest!('m', [0.9, 0.1, 0], 2);
  assert.equal(near.map((x) => x.hash), ['a', 'c']);
  assert.ok(near[0]!.score > 0.9);
  // Loading gives the vectors back; saving drops hashes no longer live.
  const loaded = await store.load('m');
  assert.equal(loaded.get('b'), [0, 1, 0]);
  await store.save('m', [], new Set(['a']));
  assert.equal([...(await store.load('m')).keys()], ['a']);
  assert.is((await store.load('other')).size, 0);
  await db.close();
});

test('without pgvector the store falls back to plain arrays and lets Hub score', async () => {
  const db = await PGlite.create();
  const store = new SqlVectorStore(db as never, 'plain_embeddings');
  await store.save('m', [['x', [0.5, 0.25]]], new Set(['x']));
  assert.is(store.kind, 'postgres');
  assert.is(store.nearest, undefined);
  assert.equal((await store.load('m')).get('x'), [0.5, 0.25]);
  await db.close();
});

test.run();
