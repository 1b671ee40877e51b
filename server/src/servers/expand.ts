const placeholder = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Expands `${VAR}` from `env` (the variables Hub lets server configs use,
 * see config.ts), recursively in objects. An unknown or refused variable
 * expands to ''. `$VAR` without braces is left alone.
 */
export function expandEnv<T>(value: T, env: Readonly<Record<string, string>>): T {
  if (typeof value === 'string') {
    return value.replace(placeholder, (_, name: string) => (Object.hasOwn(env, name) ? env[name]! : '')) as T;
  }
  if (Array.isArray(value)) return value.map((v) => expandEnv(v, env)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, env)])) as T;
  }
  return value;
}

/** Every `${VAR}` of a config, by the dotted path of the string holding it. */
export function placeholders(value: unknown, at = ''): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (v: unknown, p: string) => {
    if (typeof v === 'string') {
      const names = [...v.matchAll(placeholder)].map((m) => m[1]!);
      if (names.length) out.set(p, new Set(names));
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, p ? `${p}.${i}` : String(i)));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
  };
  walk(value, at);
  return out;
}
