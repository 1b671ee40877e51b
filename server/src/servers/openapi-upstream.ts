import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '@hub/contract';
import { operationsOf, type Operation } from './openapi-tools';
import { Supervisor } from './supervisor';
import { describe } from './upstream';
import { UpstreamError, type CallOptions, type Upstream, type UpstreamEvents, type UpstreamLists, type UpstreamState } from './upstream';

type Security = {
  type?: string;
  apiKey?: { name: string; in: 'header' | 'query' | 'cookie'; value: string };
  http?: { scheme?: string; credentials?: string };
  oauth2?: { token?: string };
  openIdConnect?: { token?: string };
};

/** An HTTP API described by OpenAPI 3, served as one tool per operation. */
export class OpenApiUpstream implements Upstream {
  readonly name: string;
  readonly state: UpstreamState;
  private ops = new Map<string, Operation>();
  private baseUrl = '';
  private readonly supervisor: Supervisor;

  constructor(private readonly opts: { name: string; config: ServerConfig; events: UpstreamEvents; cached?: UpstreamLists }) {
    this.name = opts.name;
    this.state = {
      status: 'connecting',
      error: null,
      cached: Boolean(opts.cached),
      tools: opts.cached?.tools ?? [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      reconnects: 0,
      capabilities: { tools: {} },
    };
    this.supervisor = new Supervisor({ connect: () => this.load(), disconnect: async () => undefined, onRetry: () => void this.state.reconnects++ });
  }

  private set(status: UpstreamState['status'], error: string | null = null) {
    this.state.status = status;
    this.state.error = error;
    this.opts.events.onChange(this.name, 'status');
  }

  private async load(): Promise<void> {
    const cfg = this.opts.config;
    this.set('connecting', this.state.error);
    try {
      const source = cfg.openapi?.schema ?? (await this.fetchDocument(cfg.openapi?.url ?? cfg.url!));
      // Loaded by the first OpenAPI server, not at start.
      const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
      const doc = (await SwaggerParser.dereference(structuredClone(source) as never, { resolve: { external: false } })) as Record<string, any>;
      if (!String(doc.openapi ?? '').startsWith('3')) throw new Error('only OpenAPI 3 documents are supported');
      const ops = operationsOf(doc);
      this.ops = new Map(ops.map((o) => [o.tool.name, o]));
      const declared = doc.servers?.[0]?.url as string | undefined;
      const docUrl = cfg.openapi?.url;
      // With an `openapi` block, `url` (if different) is the API's base; else it is the document's address.
      const explicitBase = cfg.openapi && cfg.url && cfg.url !== cfg.openapi.url ? cfg.url : undefined;
      this.baseUrl = explicitBase
        ?? (declared ? new URL(declared, docUrl ?? 'http://localhost/').toString() : undefined)
        ?? (docUrl ? new URL(docUrl).origin : cfg.url ?? '');
      Object.assign(this.state, { tools: ops.map((o) => o.tool), cached: false });
      this.opts.events.onChange(this.name, 'lists');
      this.set('connected');
    } catch (err) {
      this.set('error', `Cannot load OpenAPI document: ${describe(err)}`);
      throw err;
    }
  }

  /** Fetched here, with the server's headers, rather than by the parser (which refuses loopback hosts). */
  private async fetchDocument(url: string): Promise<unknown> {
    const res = await fetch(url, { headers: { accept: 'application/json', ...(this.opts.config.headers ?? {}) }, signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${url} is not a JSON document`);
    }
  }

  start(): Promise<void> {
    return this.supervisor.start();
  }

  stop(): Promise<void> {
    return this.supervisor.stop();
  }

  async callTool(name: string, args: Record<string, unknown>, opts?: CallOptions): Promise<CallToolResult> {
    if (this.state.status !== 'connected') await this.supervisor.waitConnected(30_000, opts?.signal).catch(() => undefined);
    const op = this.ops.get(name);
    if (!op) throw new UpstreamError(`Tool ${name} not found on ${this.name}`, 'upstream');
    let path = op.path;
    const url = new URL(this.baseUrl.replace(/\/$/, '') + '/');
    const headers: Record<string, string> = { accept: 'application/json', ...(this.opts.config.headers ?? {}) };
    const query = new URLSearchParams();
    for (const p of op.params) {
      const v = args[p.name];
      if (v === undefined) continue;
      const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(s));
      else if (p.in === 'query') query.append(p.name, s);
      else if (p.in === 'header') headers[p.name] = s;
    }
    this.applySecurity(headers, query);
    const target = new URL(path.replace(/^\//, ''), url);
    query.forEach((v, k) => target.searchParams.append(k, v));
    let body: string | undefined;
    if (op.hasBody && args.body !== undefined) {
      headers['content-type'] = op.bodyType ?? 'application/json';
      body = typeof args.body === 'string' && !op.bodyType?.includes('json') ? args.body : JSON.stringify(args.body);
    }
    const timeout = AbortSignal.timeout(this.opts.config.timeout ?? 60_000);
    const signal = opts?.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(target, { method: op.method, headers, body, signal });
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: `Request to ${op.method} ${target.pathname} failed: ${describe(err)}` }] };
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      return { isError: true, content: [{ type: 'text', text: `HTTP ${res.status} ${res.statusText}: ${text.slice(0, 4000)}` }] };
    }
    const result: CallToolResult = { content: [{ type: 'text', text: json !== undefined ? JSON.stringify(json, null, 2) : text }] };
    if (json && typeof json === 'object' && !Array.isArray(json)) result.structuredContent = json as Record<string, unknown>;
    return result;
  }

  private applySecurity(headers: Record<string, string>, query: URLSearchParams): void {
    const sec = this.opts.config.openapi?.security as Security | undefined;
    if (!sec) return;
    if (sec.apiKey?.value) {
      if (sec.apiKey.in === 'query') query.set(sec.apiKey.name, sec.apiKey.value);
      else if (sec.apiKey.in === 'cookie') headers.cookie = `${sec.apiKey.name}=${sec.apiKey.value}`;
      else headers[sec.apiKey.name] = sec.apiKey.value;
    }
    if (sec.http?.credentials) {
      const scheme = (sec.http.scheme ?? 'bearer').toLowerCase() === 'basic' ? 'Basic' : 'Bearer';
      headers.authorization = `${scheme} ${sec.http.credentials}`;
    }
    const token = sec.oauth2?.token ?? sec.openIdConnect?.token;
    if (token) headers.authorization = `Bearer ${token}`;
  }

  async getPrompt(): Promise<GetPromptResult> {
    throw new UpstreamError('OpenAPI servers have no prompts', 'upstream');
  }

  async forward(method: string): Promise<Record<string, unknown>> {
    throw new UpstreamError(`OpenAPI servers do not answer ${method}`, 'upstream');
  }

  async readResource(): Promise<ReadResourceResult> {
    throw new UpstreamError('OpenAPI servers have no resources', 'upstream');
  }
}
