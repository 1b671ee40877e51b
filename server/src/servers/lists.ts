import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { UpstreamLists } from './upstream';

/** Fetches every page of the lists the server says it has. */
export async function fetchLists(client: Client, timeout: number): Promise<UpstreamLists> {
  const caps = client.getServerCapabilities() ?? {};
  const opts = { timeout };
  // A list the server claims but fails to give (method not found) counts as empty, not as a dead server.
  const pages = async <T>(fetchPage: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> => {
    const all: T[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      let page: { items: T[]; nextCursor?: string };
      try {
        page = await fetchPage(cursor);
      } catch (err) {
        if ((err as { code?: number }).code === -32601) return all;
        throw err;
      }
      all.push(...page.items);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return all;
  };
  const [tools, prompts, resources, resourceTemplates] = await Promise.all([
    caps.tools ? pages(async (cursor) => { const r = await client.listTools({ cursor }, opts); return { items: r.tools, nextCursor: r.nextCursor }; }) : [],
    caps.prompts ? pages(async (cursor) => { const r = await client.listPrompts({ cursor }, opts); return { items: r.prompts, nextCursor: r.nextCursor }; }) : [],
    caps.resources ? pages(async (cursor) => { const r = await client.listResources({ cursor }, opts); return { items: r.resources, nextCursor: r.nextCursor }; }) : [],
    caps.resources
      ? pages(async (cursor) => { const r = await client.listResourceTemplates({ cursor }, opts); return { items: r.resourceTemplates, nextCursor: r.nextCursor }; }).catch(() => [])
      : [],
  ]);
  return { tools, prompts, resources, resourceTemplates };
}
