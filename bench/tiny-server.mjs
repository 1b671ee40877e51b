// A minimal stdio MCP server without the SDK (three tools), so a footprint run
// can start a hundred of them: Hub's memory is measured, not theirs.
import { serveStdio } from './stdio-mcp.mjs';

const id = process.argv[2] ?? '0';
const tools = ['alpha', 'beta', 'gamma'].map((name) => ({
  name,
  description: `Tool ${name} of tiny server ${id}`,
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
}));
serveStdio({ name: 'tiny', tools, call: (params, reply) => reply({ content: [{ type: 'text', text: String(params.arguments?.message ?? '') }] }) });
