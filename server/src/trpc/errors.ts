import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';

export type ErrorDescription = { message: string; field?: string; issues?: Array<{ path: string; message: string }> };

function pathOf(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

/** One wording of an error for every door: REST bodies and tRPC error shapes. */
export function describeError(err: TRPCError): ErrorDescription {
  const cause = err.cause;
  if (cause instanceof ZodError) {
    const issues = cause.issues.map((i) => {
      const keys = i.code === 'unrecognized_keys' ? (i as { keys: string[] }).keys : [];
      const base = pathOf(i.path);
      const path = keys.length === 1 ? [base, keys[0]].filter(Boolean).join('.') : base;
      return { path: path || 'body', message: i.code === 'unrecognized_keys' ? `is not a known field` : i.message };
    });
    const first = issues[0]!;
    return { message: `${first.path}: ${first.message}`, field: first.path, issues };
  }
  // Services name the field the same way, `field.path: what is wrong`.
  const field = /^([A-Za-z_][\w-]*(?:\.[\w.@-]+)*): /.exec(err.message)?.[1];
  return { message: err.message, ...(field ? { field } : {}) };
}
