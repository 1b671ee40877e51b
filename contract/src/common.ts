import { z } from 'zod';

/** A string that is either empty (meaning "unset") or a valid URL. */
export const optionalUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/ })]);

export const stringMap = z.record(z.string(), z.string());

/** Names used as path segments: no slashes, no control characters, bounded length. */
export const resourceName = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(/^[^/\\\s?#%][^/\\?#%]*$/, 'must not contain slashes, spaces at the start, ?, # or %');

export type Envelope<T> = { success: true; data: T; message?: string };
export type ErrorEnvelope = { success: false; error: string; message: string; code: string; field?: string };
