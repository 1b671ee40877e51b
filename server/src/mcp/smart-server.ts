import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { callExposed, type AgentServerDeps } from './agent-server';
import type { Principal } from '../auth/principal';
import type { SmartService } from '../smart/service';

const tools: Tool[] = [
  {
    name: 'search_tools',
    description: 'Search every tool this hub offers by what you want to do. Returns the best matches with their server and a short description; call describe_tool for the full input schema.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What the tool should do, in plain words' }, limit: { type: 'number', description: 'How many results (1-50, default 10)' } },
      required: ['query'],
    },
  },
  {
    name: 'describe_tool',
    description: 'The full description and input schema of one tool found by search_tools.',
    inputSchema: { type: 'object', properties: { toolName: { type: 'string', description: 'The tool name from search_tools' } }, required: ['toolName'] },
  },
  {
    name: 'call_tool',
    description: 'Call a tool found by search_tools with its arguments.',
    inputSchema: {
      type: 'object',
      properties: { toolName: { type: 'string', description: 'The tool name from search_tools' }, arguments: { type: 'object', description: 'Arguments matching the tool input schema' } },
      required: ['toolName'],
    },
  },
];

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value as Record<string, unknown> });

/**
 * The smart-routing surface for one agent: three fixed tools that search,
 * describe and call the whole catalogue of its scope. Enable flags, group
 * selections and the caller's access hold at search time and at call time.
 */
export function createSmartServer(deps: AgentServerDeps & { smart: SmartService }, scopeKey: string, principal: () => Principal | null) {
  const server = new Server({ name: 'hub-smart', version: deps.version }, { capabilities: { tools: {} } });
  const scope = () => {
    const s = deps.catalog.scopeFor(scopeKey, principal());
    if (!s) throw new McpError(ErrorCode.InvalidRequest, `Group ${scopeKey.replace(/^\w+:/, '')} no longer exists`);
    return s;
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const s = scope();
    switch (req.params.name) {
      case 'search_tools': {
        if (typeof args.query !== 'string' || !args.query.trim()) throw new McpError(ErrorCode.InvalidParams, 'query: is required');
        const limit = Math.max(1, Math.min(50, Number(args.limit ?? 10) || 10));
        return json({ results: await deps.smart.search(args.query, limit, (name) => s.toolIndex.has(name)) });
      }
      case 'describe_tool': {
        const t = s.toolIndex.get(String(args.toolName ?? ''));
        if (!t) throw new McpError(ErrorCode.InvalidParams, `Tool ${String(args.toolName)} not found`);
        return json({ name: t.name, server: t.server, description: t.tool.description ?? '', inputSchema: t.tool.inputSchema });
      }
      case 'call_tool':
        return callExposed(deps, s, principal(), String(args.toolName ?? ''), (args.arguments ?? {}) as Record<string, unknown>, extra);
      default:
        throw new McpError(ErrorCode.InvalidParams, `Tool ${req.params.name} not found`);
    }
  });
  return { server, connect: (transport: Transport) => server.connect(transport), dispose: () => undefined };
}
