import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from './catalog';
import type { AgentServerDeps } from './agent-server';

const serversOf = new WeakMap<Scope, Set<string>>();
/** The upstream servers a scope draws on. */
export function scopeServers(scope: Scope | null): Set<string> {
  if (!scope) return new Set();
  let set = serversOf.get(scope);
  if (!set) {
    set = new Set([...scope.tools, ...scope.prompts, ...scope.resources, ...scope.templates].map((x) => x.server));
    serversOf.set(scope, set);
  }
  return set;
}

/**
 * What Hub offers an agent follows what the upstreams of its scope offer:
 * resource subscriptions and completions only when one of them has them (a
 * server not yet connected counts as having them). Lists may change, so they
 * are always offered with `listChanged`; logging is Hub's own.
 */
export function capabilitiesFor(deps: AgentServerDeps, scope: Scope | null): ServerCapabilities {
  let subscribe = false;
  let completions = false;
  let tasks = false;
  for (const name of scopeServers(scope)) {
    const caps = deps.registry.state(name)?.capabilities;
    subscribe ||= !caps || Boolean(caps.resources?.subscribe);
    completions ||= !caps || Boolean(caps.completions);
    tasks ||= Boolean(caps?.tasks?.requests?.tools?.call);
  }
  return {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) },
    logging: {},
    ...(completions ? { completions: {} } : {}),
    ...(tasks && deps.tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
  };
}

