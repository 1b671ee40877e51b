// The floor of any HTTP hub: the SDK's streamable-HTTP server on node:http whose `echo` answers by itself.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const sessions = new Map();
function makeServer() {
  const s = new Server({ name: 'null', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }],
  }));
  s.setRequestHandler(CallToolRequestSchema, (req) => ({ content: [{ type: 'text', text: `Echo: ${req.params.arguments?.message}` }] }));
  return s;
}
const server = http.createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : undefined;
  const id = req.headers['mcp-session-id'];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport && parsed && isInitializeRequest(parsed)) {
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
    await makeServer().connect(transport);
  }
  if (!transport) {
    res.writeHead(404).end();
    return;
  }
  await transport.handleRequest(req, res, parsed);
});
server.listen(0, '127.0.0.1', () => console.log(`PORT=${server.address().port}`));
