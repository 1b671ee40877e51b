import type { Tool } from '@modelcontextprotocol/sdk/types.js';

type Json = Record<string, any>;
const methods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

export type Operation = {
  tool: Tool;
  method: string;
  path: string;
  params: Array<{ name: string; in: 'path' | 'query' | 'header' | 'cookie'; required: boolean }>;
  hasBody: boolean;
  bodyType?: string;
};

function toolNameFor(method: string, path: string): string {
  return `${method}_${path}`.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/_$/, '');
}

/** One tool per operation of a dereferenced OpenAPI 3 document. */
export function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of methods) {
      const op = item?.[method] as Json | undefined;
      if (!op) continue;
      let name = String(op.operationId ?? toolNameFor(method, path)).slice(0, 64);
      if (seen.has(name)) name = `${name.slice(0, 56)}_${method}${ops.length}`;
      seen.add(name);
      const properties: Json = {};
      const required: string[] = [];
      const params: Operation['params'] = [];
      for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])] as Json[]) {
        if (!p?.name || !p.in) continue;
        properties[p.name] = { ...(p.schema ?? { type: 'string' }), ...(p.description ? { description: p.description } : {}) };
        if (p.required || p.in === 'path') required.push(p.name);
        params.push({ name: p.name, in: p.in, required: Boolean(p.required || p.in === 'path') });
      }
      const content = op.requestBody?.content as Json | undefined;
      const bodyType = content ? (Object.keys(content).find((t) => t.includes('json')) ?? Object.keys(content)[0]) : undefined;
      if (bodyType) {
        properties.body = { ...(content![bodyType].schema ?? {}), description: op.requestBody.description ?? 'Request body' };
        if (op.requestBody.required) required.push('body');
      }
      ops.push({
        tool: {
          name,
          description: op.summary ?? op.description ?? `${method.toUpperCase()} ${path}`,
          inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}) },
        },
        method: method.toUpperCase(),
        path,
        params,
        hasBody: Boolean(bodyType),
        bodyType,
      });
    }
  }
  return ops;
}
