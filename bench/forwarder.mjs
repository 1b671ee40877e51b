// (f) in the hot-path bench: the least a Node hub can do per forwarded call. A bare
// node:http server relays each JSON-RPC POST to a stdio server and its answer back
// as JSON: no MCP library, no auth, no routing, no bookkeeping.
import http from 'node:http';
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
const pending = new Map();
let seq = 0;
let buffered = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  const lines = (buffered + chunk).split('\n');
  buffered = lines.pop();
  for (const line of lines) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  }
});
const relay = (message) =>
  new Promise((resolve) => {
    const id = `f${++seq}`;
    pending.set(id, resolve);
    child.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
  });

await relay({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'forwarder', version: '1' } } });
child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

const json = (res, body) => res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'forwarder' }).end(JSON.stringify(body));
const server = http.createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    const message = JSON.parse(body);
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'initialize') {
      return json(res, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'forwarder', version: '1' } } });
    }
    const answer = await relay(message);
    json(res, { ...answer, id: message.id });
  });
});
server.listen(0, '127.0.0.1', () => console.log(`PORT=${server.address().port}`));
