import { TRPCError } from '@trpc/server';
import type { CallToolResult, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerRegistry } from '../servers/registry';
import type { Catalog, ExposedTool } from '../mcp/catalog';
import { coerceArguments } from '../mcp/coerce';
import { UpstreamError } from '../servers/upstream';
import { describe } from '../servers/upstream';
import type { Principal } from '../auth/principal';
import type { Activity } from '../monitoring/activity';
import type { Redactor } from '../monitoring/redact';

export type ToolCallResult = CallToolResult & { toolName: string; arguments: Record<string, unknown> };

/** An upstream's failure as the caller sees it: its text redacted and cut short. */
function upstreamFailure(err: unknown, redactor: Redactor): TRPCError {
  if (err instanceof TRPCError) return err;
  const message = redactor.forCaller(describe(err));
  if (err instanceof UpstreamError && err.kind === 'not_connected') return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message });
  if (/timed? ?out/i.test(message)) return new TRPCError({ code: 'GATEWAY_TIMEOUT', message });
  return new TRPCError({ code: 'BAD_GATEWAY', message });
}

/** Tool calls and prompt gets made through REST (agents use the MCP routes). */
export class ToolsService {
  constructor(
    private readonly registry: ServerRegistry,
    private readonly catalog: Catalog,
    private readonly activity: Activity,
    private readonly redactor: Redactor,
  ) {}

  /** The enabled tool of a server, by its upstream name or its exposed name. */
  findTool(server: string, toolName: string, principal: Principal | null): ExposedTool {
    const scope = this.catalog.scopeFor(`server:${server}`, principal);
    if (!scope) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${server} not found` });
    const tool = scope.toolByOriginal.get(`${server}\u0000${toolName}`) ?? scope.toolIndex.get(toolName);
    if (!tool) throw new TRPCError({ code: 'NOT_FOUND', message: `Tool ${toolName} not found on server ${server}, or disabled` });
    return tool;
  }

  async call(principal: Principal | null, server: string, toolName: string, args: Record<string, unknown>, sessionId?: string): Promise<ToolCallResult> {
    const tool = this.findTool(server, toolName, principal);
    const upstream = this.registry.upstreamFor(server, principal);
    if (!upstream) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `Server ${server} is not running` });
    const coerced = coerceArguments(args, tool.tool.inputSchema);
    if (!this.activity.begin()) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'Hub is shutting down; try again shortly' });
    const started = performance.now();
    const done = (ok: boolean, error?: string) =>
      this.activity.record({ server, tool: tool.original, duration: performance.now() - started, ok, user: principal?.username, error });
    try {
      const result = await upstream.callTool(tool.original, coerced, { sessionId });
      done(!result.isError, result.isError ? 'tool returned an error' : undefined);
      return { ...result, toolName: tool.original, arguments: coerced };
    } catch (err) {
      done(false, describe(err));
      throw upstreamFailure(err, this.redactor);
    }
  }

  async getPrompt(principal: Principal, server: string, promptName: string, args: Record<string, string>): Promise<GetPromptResult> {
    const scope = this.catalog.scopeFor(`server:${server}`, principal);
    if (!scope) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${server} not found` });
    const prompt = scope.promptByOriginal.get(`${server}\u0000${promptName}`) ?? scope.promptIndex.get(promptName);
    if (!prompt) throw new TRPCError({ code: 'NOT_FOUND', message: `Prompt ${promptName} not found on server ${server}, or disabled` });
    const upstream = this.registry.upstreamFor(server, principal);
    if (!upstream) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `Server ${server} is not running` });
    try {
      return await upstream.getPrompt(prompt.original, args);
    } catch (err) {
      throw upstreamFailure(err, this.redactor);
    }
  }

  /** An OpenAPI 3 document of the exposed tools, for OpenAPI-compatible clients. */
  openApiDocument(baseUrl: string, version: string) {
    const scope = this.catalog.scope('all');
    const paths: Record<string, unknown> = {};
    for (const t of scope?.tools ?? []) {
      const path = `/api/tools/${encodeURIComponent(t.server)}/${encodeURIComponent(t.original)}`;
      paths[path] = {
        post: {
          operationId: t.name,
          summary: t.tool.title ?? t.original,
          description: t.tool.description,
          tags: [t.server],
          requestBody: { required: true, content: { 'application/json': { schema: t.tool.inputSchema } } },
          responses: { '200': { description: 'Tool result', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      };
    }
    return { openapi: '3.1.0', info: { title: 'Hub tools', version }, servers: [{ url: baseUrl }], paths };
  }
}
