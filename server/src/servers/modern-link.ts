import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { fetchLists } from './lists';
import type { CallOptions, UpstreamLists } from './upstream';

type V2Client = InstanceType<typeof import('@modelcontextprotocol/client').Client>;

/** An upstream refused a sessionful handshake and named only stateless revisions (-32022). */
export function wantsModern(err: unknown): boolean {
  const text = err instanceof Error ? err.message : String(err);
  return /-32022/.test(text) && /"supported":\[[^\]]*"20(2[6-9]|[3-9]\d)-/.test(text);
}

/**
 * Hub's connection to an upstream that speaks only the stateless revision
 * (2026-07-28), through SDK v2 (loaded when first needed): no session,
 * `server/discover` instead of `initialize`, list changes on a
 * `subscriptions/listen` stream. Calls carry the agent's signal and progress.
 */
export class ModernLink {
  private constructor(private readonly client: V2Client) {}

  static async open(url: URL, headers: Record<string, string>, timeout: number, version: string, onListChanged: () => void, onClose: () => void): Promise<ModernLink> {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'hub', version }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }), { timeout } as never);
    client.onclose = onClose;
    for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed']) {
      client.setNotificationHandler(method as never, onListChanged as never);
    }
    // Change notices, where the server offers them; a server without them is polled by nobody.
    const caps = client.getServerCapabilities() ?? {};
    const filter = { toolsListChanged: Boolean(caps.tools?.listChanged), promptsListChanged: Boolean(caps.prompts?.listChanged), resourcesListChanged: Boolean(caps.resources?.listChanged) };
    if (filter.toolsListChanged || filter.promptsListChanged || filter.resourcesListChanged) await client.listen(filter).catch(() => undefined);
    return new ModernLink(client);
  }

  get capabilities() {
    return this.client.getServerCapabilities();
  }

  lists(timeout: number): Promise<UpstreamLists> {
    return fetchLists(this.client as never, timeout);
  }

  private options(opts: CallOptions | undefined, timeout: number) {
    return { signal: opts?.signal, timeout, ...(opts?.onprogress ? { onprogress: opts.onprogress, resetTimeoutOnProgress: true } : {}) };
  }

  callTool(name: string, args: Record<string, unknown>, opts: CallOptions | undefined, timeout: number): Promise<CallToolResult> {
    return this.client.callTool({ name, arguments: args }, this.options(opts, timeout) as never) as Promise<CallToolResult>;
  }

  getPrompt(name: string, args: Record<string, string>, opts: CallOptions | undefined, timeout: number): Promise<GetPromptResult> {
    return this.client.getPrompt({ name, arguments: args }, this.options(opts, timeout) as never) as Promise<GetPromptResult>;
  }

  readResource(uri: string, opts: CallOptions | undefined, timeout: number): Promise<ReadResourceResult> {
    return this.client.readResource({ uri }, this.options(opts, timeout) as never) as Promise<ReadResourceResult>;
  }

  forward(method: string, params: Record<string, unknown>, opts: CallOptions | undefined, timeout: number): Promise<Record<string, unknown>> {
    return this.client.request({ method, params } as never, this.options(opts, timeout) as never) as Promise<Record<string, unknown>>;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
