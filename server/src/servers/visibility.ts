import type { ServerConfig, SystemConfig } from '@hub/contract';

/**
 * Whether a server's tool or prompt is offered to agents: an operator's
 * switch wins; a tool nobody switched follows the server's, then Hub's,
 * `defaultToolVisibility` (`deny` holds new tools back until enabled).
 */
export function itemEnabled(kind: 'tools' | 'prompts', cfg: ServerConfig, sys: SystemConfig, name: string): boolean {
  const set = cfg[kind]?.[name]?.enabled;
  if (set !== undefined) return set;
  if (kind !== 'tools') return true;
  return (cfg.defaultToolVisibility ?? sys.defaultToolVisibility ?? 'allow') !== 'deny';
}
