/**
 * Renames keys written by MCPHub to Hub's names. The data is kept, only
 * moved; the next write persists the new names.
 */
const renames: Array<[section: string, from: string, to: string]> = [
  ['smartRouting', 'openaiApiKey', 'providerApiKey'],
  ['smartRouting', 'openaiApiBaseUrl', 'providerApiBaseUrl'],
  ['smartRouting', 'openaiApiEmbeddingModel', 'providerApiEmbeddingModel'],
  ['install', 'npmRegistry', 'jsPackageRegistry'],
];

export function migrateLegacyKeys(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const sys = (raw as Record<string, unknown>).systemConfig as Record<string, Record<string, unknown>> | undefined;
  if (!sys || typeof sys !== 'object') return raw;
  for (const [section, from, to] of renames) {
    const s = sys[section];
    if (s && typeof s === 'object' && from in s) {
      if (!(to in s)) s[to] = s[from];
      delete s[from];
    }
  }
  return raw;
}
