// An upstream-bound workload for the scale-out bench: one stdio tool that
// takes SLOW_MS per call and serves at most SLOW_LIMIT calls at once per
// process (the rest queue), like an API client with a connection pool.
import { createInterface } from 'node:readline';

const delay = Number(process.env.SLOW_MS ?? 20);
const limit = Number(process.env.SLOW_LIMIT ?? 4);
const tools = [{ name: 'work', description: 'Takes a while', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }];
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');

let running = 0;
const queue = [];
function run(id, n) {
  running++;
  setTimeout(() => {
    running--;
    send({ id, result: { content: [{ type: 'text', text: `done ${n}` }] } });
    const next = queue.shift();
    if (next) run(...next);
  }, delay);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined) return;
  if (m.method === 'initialize') send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } } });
  else if (m.method === 'tools/list') send({ id: m.id, result: { tools } });
  else if (m.method === 'tools/call') (running < limit ? run : (...a) => queue.push(a))(m.id, m.params?.arguments?.n ?? 0);
  else if (m.method === 'ping') send({ id: m.id, result: {} });
  else send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
});
