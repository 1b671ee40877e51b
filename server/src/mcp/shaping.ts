import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolShape } from '@hub/contract';

type Schema = { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * The tool as a group offers it: renamed and redescribed, fixed arguments
 * gone from its input schema (agents cannot set them), defaulted ones marked
 * with their default and no longer required.
 */
export function shapeTool(tool: Tool, exposedName: string, shape: ToolShape): Tool {
  const schema = (tool.inputSchema ?? { type: 'object' }) as Schema;
  const fixed = shape.arguments?.fixed ?? {};
  const defaults = shape.arguments?.defaults ?? {};
  const properties: Record<string, Record<string, unknown>> = Object.create(null);
  for (const [k, v] of Object.entries(schema.properties ?? {})) {
    if (Object.hasOwn(fixed, k)) continue;
    properties[k] = Object.hasOwn(defaults, k) ? { ...v, default: defaults[k] } : v;
  }
  const required = (schema.required ?? []).filter((k) => !Object.hasOwn(fixed, k) && !Object.hasOwn(defaults, k));
  return {
    ...tool,
    name: exposedName,
    description: shape.description ?? tool.description,
    inputSchema: { ...schema, type: 'object', properties: { ...properties }, ...(required.length ? { required } : { required: undefined }) } as Tool['inputSchema'],
  };
}

/** An agent's arguments for a shaped tool: defaults under, fixed values over what it sent. */
export function shapedArgs(shape: ToolShape, args: Record<string, unknown>): Record<string, unknown> {
  return { ...shape.arguments?.defaults, ...args, ...shape.arguments?.fixed };
}
