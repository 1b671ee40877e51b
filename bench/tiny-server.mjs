// A minimal stdio MCP server without the SDK (three tools), so a footprint run
// can start a hundred of them: Hub's memory is measured, not theirs.
import { createInterface } from 'node:readline';

const id = process.argv[2] ?? '0';
const tools = ['alpha', 'beta', 'gamma'].map((name) => ({
  name,
  description: `Tool ${name} of tiny server ${id}`,
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
}));
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');

createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools } });
  else if (m.method === 'tools/call') send({ id: m.id, result: { content: [{ type: 'text', text: String(m.params?.arguments?.message ?? '') }] } });
  else if (m.method === 'ping') send({ id: m.id, result: {} });
  else send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
});
