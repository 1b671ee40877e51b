// The smallest MCP server loop over stdio, without the SDK, for bench upstreams:
// initialize, tools/list, ping, and a tools/call handler that answers with `reply(result)`.
import { createInterface } from 'node:readline';

export function serveStdio({ name, tools, call }) {
  const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  createInterface({ input: process.stdin }).on('line', (line) => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.id === undefined) return;
    if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name, version: '1' } } });
    else if (m.method === 'tools/list') send({ id: m.id, result: { tools } });
    else if (m.method === 'tools/call') call(m.params ?? {}, (result) => send({ id: m.id, result }));
    else if (m.method === 'ping') send({ id: m.id, result: {} });
    else send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  });
}
