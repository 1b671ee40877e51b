import { z } from 'zod';

/** A string that is either empty (meaning "unset") or a valid URL. */
export const optionalUrl = z.union([z.literal(''), z.url({ protocol: /^https?$/ })]);

/**
 * Names that would reach an object's prototype chain when used as a key
 * (`obj[name]`). Hub keeps its maps prototype-free as well; refusing these
 * at the edge keeps them out of files and logs too.
 */
export const reservedNames: readonly string[] = ['__proto__', 'constructor', 'prototype'];
export const isReservedName = (name: string) => reservedNames.includes(name);
const reservedMessage = `must not be ${reservedNames.join(', ')}`;

/** Any key of a name-keyed map (env and header names, tool names): never a prototype key. */
export const safeKey = z.string().refine((k) => !isReservedName(k), reservedMessage);

export const stringMap = z.record(safeKey, z.string());

/** A name given to find a record (path parameters, references): bounded, never a prototype key. */
export const nameRef = z.string().min(1, 'is required').max(1000, 'must be at most 1000 characters').refine((k) => !isReservedName(k), reservedMessage);

/** Names used as path segments: no slashes, no control characters, bounded length, never `.`, `..` or a prototype key. */
export const resourceName = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(/^[^/\\\s?#%\p{Cc}][^/\\?#%\p{Cc}]*$/u, 'must not contain slashes, control characters, spaces at the start, ?, # or %')
  .refine((n) => n !== '.' && n !== '..', 'must not be . or ..')
  .refine((n) => !isReservedName(n), reservedMessage);

export type Envelope<T> = { success: true; data: T; message?: string };
export type ErrorEnvelope = { success: false; error: string; message: string; code: string; field?: string };
