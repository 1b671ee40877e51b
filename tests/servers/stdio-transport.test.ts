import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { GroupStdioTransport } from '../../server/src/servers/stdio-transport';
import { fixture } from '../helpers/mcp';

test('progress updates read in the same chunk as the result all reach the caller, in order', async () => {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new GroupStdioTransport({ command: process.execPath, args: [fixture('burst.mjs')], env: { PATH: process.env.PATH ?? '' } }));
  try {
    for (let i = 0; i < 20; i++) {
      const seen: number[] = [];
      const result = await client.request({ method: 'tools/call', params: { name: 'burst', arguments: {} } }, ResultSchema, { onprogress: (p) => void seen.push(p.progress) });
      assert.equal(seen, [1, 2, 3], `call ${i}`);
      assert.equal(result, { content: [{ type: 'text', text: 'burst done' }] });
    }
  } finally {
    await client.close();
  }
});

test.run();
