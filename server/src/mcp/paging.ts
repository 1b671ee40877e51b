import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * One page of a list Hub serves itself (tools, prompts, resources), with an
 * opaque cursor to the next. A catalogue of thousands of tools reaches agents
 * in pages; one no larger than the page size comes whole, without a cursor.
 */
export function page<T>(items: readonly T[], cursor: string | undefined, size: number): { items: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const m = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!m) throw new McpError(ErrorCode.InvalidParams, 'cursor: not a cursor this server gave');
    offset = Number(m[1]);
  }
  const end = offset + size;
  return { items: items.slice(offset, end), ...(end < items.length ? { nextCursor: Buffer.from(`o${end}`).toString('base64url') } : {}) };
}
