type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema };

function coerceValue(value: unknown, schema: Schema | undefined): unknown {
  if (!schema || value === null || value === undefined) return value;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (typeof value === 'string') {
    if (types.includes('string')) return value;
    if ((types.includes('number') || types.includes('integer')) && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    if (types.includes('boolean') && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
    if ((types.includes('object') || types.includes('array')) && /^[[{]/.test(value.trim())) {
      try {
        return coerceValue(JSON.parse(value), schema);
      } catch {
        return value;
      }
    }
    if (types.includes('array')) return value.split(',').map((v) => coerceValue(v.trim(), schema.items));
    return value;
  }
  if (Array.isArray(value) && schema.items) return value.map((v) => coerceValue(v, schema.items));
  if (typeof value === 'object' && schema.properties) return coerceArguments(value as Record<string, unknown>, schema);
  return value;
}

/** Converts argument values (strings from query strings and forms) to the types the tool's input schema declares. */
export function coerceArguments(args: Record<string, unknown>, schema: unknown): Record<string, unknown> {
  const props = (schema as Schema | undefined)?.properties;
  if (!props) return args;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, coerceValue(v, props[k])]));
}
