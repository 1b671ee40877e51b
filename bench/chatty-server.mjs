// A stdio MCP server that writes RATE stderr lines a second (each carrying its send time) for SECONDS.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const rate = Number(process.env.RATE ?? 1000);
const seconds = Number(process.env.SECONDS ?? 10);
const server = new Server({ name: 'chatty', version: '1.0.0' }, { capabilities: { tools: {} } });
await server.connect(new StdioServerTransport());
await new Promise((r) => setTimeout(r, Number(process.env.DELAY_MS ?? 3000)));
const start = Date.now();
let sent = 0;
const timer = setInterval(() => {
  const due = Math.min(rate * seconds, Math.floor(((Date.now() - start) / 1000) * rate));
  let batch = '';
  for (; sent < due; sent++) batch += `tick ${sent} ${Date.now()}\n`;
  if (batch) process.stderr.write(batch);
  if (sent >= rate * seconds) clearInterval(timer);
}, 5);
