import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type Record_ = { server: string; upstreamId: string; owner: string; expires: number };
type TaskLike = { taskId?: unknown; ttl?: unknown };

/** How long a task is remembered when its upstream gave no ttl. */
const DEFAULT_TTL = 60 * 60_000;
const META_KEY = 'io.modelcontextprotocol/related-task';

/**
 * Tasks (protocol 2025-11-25) that agents started on upstreams through Hub.
 * Agents see Hub's own task ids, so ids of different upstreams never meet,
 * and a task is found only by the owner who started it (a user, or for
 * anonymous agents their session): another caller gets "not found", as if it
 * did not exist. Kept in this process's memory.
 */
export class TaskRouter {
  private readonly byId = new Map<string, Record_>();
  private readonly byUpstream = new Map<string, string>();

  /** A task an upstream created: recorded, and returned with Hub's id in place of the upstream's. */
  created(server: string, owner: string, result: Record<string, unknown>): Record<string, unknown> {
    this.prune();
    const task = result.task as TaskLike | undefined;
    if (!task || typeof task.taskId !== 'string') return result;
    const id = `task-${randomUUID()}`;
    const ttl = typeof task.ttl === 'number' && task.ttl > 0 ? task.ttl : DEFAULT_TTL;
    this.byId.set(id, { server, upstreamId: task.taskId, owner, expires: Date.now() + ttl + 60_000 });
    this.byUpstream.set(`${server}\u0000${task.taskId}`, id);
    return { ...result, task: { ...task, taskId: id } };
  }

  /** The upstream task behind Hub's id, for its owner only. */
  find(id: unknown, owner: string): Record_ {
    const r = typeof id === 'string' ? this.byId.get(id) : undefined;
    if (!r || r.owner !== owner || r.expires < Date.now()) throw new McpError(ErrorCode.InvalidParams, `Task ${String(id)} not found`);
    return r;
  }

  /** The owner's tasks, by server, with the upstream ids to match `tasks/list` answers. */
  owned(owner: string): Map<string, Map<string, string>> {
    this.prune();
    const out = new Map<string, Map<string, string>>();
    for (const [id, r] of this.byId) {
      if (r.owner !== owner) continue;
      if (!out.has(r.server)) out.set(r.server, new Map());
      out.get(r.server)!.set(r.upstreamId, id);
    }
    return out;
  }

  /** An upstream's answer about a task, with Hub's id wherever the upstream's appears. */
  translate<T>(server: string, value: T): T {
    if (Array.isArray(value)) return value.map((v) => this.translate(server, v)) as T;
    if (!value || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'taskId' && typeof v === 'string') out[k] = this.byUpstream.get(`${server}\u0000${v}`) ?? v;
      else out[k] = k === '_meta' || k === META_KEY || k === 'task' || k === 'tasks' ? this.translate(server, v) : v;
    }
    return out as T;
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, r] of this.byId) {
      if (r.expires >= now) continue;
      this.byId.delete(id);
      this.byUpstream.delete(`${r.server}\u0000${r.upstreamId}`);
    }
  }
}
