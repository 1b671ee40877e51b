import { z } from 'zod';

/** `${user.secret.NAME}` in a server's headers or env: the caller's own value of NAME. */
export const userSecretPattern = /\$\{user\.secret\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

export const secretName = z
  .string()
  .min(1, 'is required')
  .max(100, 'must be at most 100 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must start with a letter or _ and hold only A-Z a-z 0-9 _');

export const setSecretInput = z.object({
  name: secretName,
  // It may go into an HTTP header: no line breaks or NUL, which would break (or split) the request.
  value: z.string().min(1, 'is required').max(10_000, 'must be at most 10000 characters').regex(/^[^\r\n\0]*$/, 'must not contain line breaks or NUL'),
});

/** Stored per owner (`user:<name>` or `key:<id>`), by secret name. Never returned. */
export const userSecretRecord = z.object({ value: z.string(), updatedAt: z.string() });

/** A secret as its owner sees it: whether it is set, never its value. */
export type UserSecretView = {
  name: string;
  set: boolean;
  updatedAt?: string;
  /** For an API key without its own value: its user's value is used. */
  inherited?: boolean;
  /** Servers the caller may use whose headers or env need it. */
  servers: string[];
};

/** The secret names a server configuration asks of each caller. */
export function userSecretNames(cfg: { headers?: Record<string, string>; env?: Record<string, string> }): string[] {
  const names = new Set<string>();
  for (const v of [...Object.values(cfg.headers ?? {}), ...Object.values(cfg.env ?? {})]) {
    for (const m of v.matchAll(userSecretPattern)) names.add(m[1]!);
  }
  return [...names];
}
