import { z } from 'zod';
import { isReservedName, nameRef } from './common';

/** `consumer`: calls the tools and prompts of the servers it is granted without seeing their configuration. */
export const roles = ['admin', 'manager', 'user', 'viewer', 'consumer'] as const;
export const role = z.enum(roles);
export type Role = z.infer<typeof role>;

/** A user as stored. `password` is always a hash (argon2id, or bcrypt from MCPHub until next login). */
export const userRecordSchema = z.looseObject({
  username: z.string().min(1),
  password: z.string().min(1),
  isAdmin: z.boolean().optional(),
  role: role.optional(),
  email: z.string().nullable().optional(),
  servers: z.array(z.string()).optional(),
  groups: z.array(z.string()).optional(),
  /** Set when the password was generated at first start, cleared when it is changed. */
  generatedPassword: z.boolean().optional(),
  /** Bumped when the password changes (or on "sign out everywhere"): tokens of an older version are refused. */
  tokenVersion: z.number().int().min(0).optional(),
  passwordChangedAt: z.string().optional(),
  /** Hashes of earlier passwords, newest first, for `preventReuse`. */
  passwordHistory: z.array(z.string()).optional(),
  mfa: z.looseObject({ enabled: z.boolean(), secret: z.string().optional(), pendingSecret: z.string().optional() }).optional(),
});
export type UserRecord = z.infer<typeof userRecordSchema>;

/** What any endpoint may say about a user: never a hash or secret. */
export type PublicUser = {
  username: string;
  role: Role;
  isAdmin: boolean;
  email?: string | null;
  servers: string[];
  groups: string[];
  generatedPassword: boolean;
  mfaEnabled: boolean;
  passwordExpired?: boolean;
  /** Signs in through an identity provider or a gateway, not with a Hub password. */
  signIn?: 'oidc' | 'forward';
};

export function roleOf(user: Pick<UserRecord, 'role' | 'isAdmin'>): Role {
  return user.role ?? (user.isAdmin ? 'admin' : 'user');
}

export const passwordPolicySchema = z.strictObject({
  minLength: z.number().int().min(6).max(256),
  requireUppercase: z.boolean(),
  requireLowercase: z.boolean(),
  requireNumbers: z.boolean(),
  requireSpecialChars: z.boolean(),
  preventCommonPasswords: z.boolean(),
  /** How many previous passwords may not be reused. */
  preventReuse: z.number().int().min(0).max(50),
  /** Seconds after which a password counts as expired. */
  maxAge: z.number().int().min(0),
});
export type PasswordPolicy = z.infer<typeof passwordPolicySchema>;

const username = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(100)
  .regex(/^[A-Za-z0-9_.@+-]+$/, 'may hold only A-Z a-z 0-9 _ . @ + -')
  .refine((n) => !/^\.+$/.test(n), 'must not be only dots')
  .refine((n) => !isReservedName(n), 'must not be __proto__, constructor or prototype');
const password = z.string().min(6, 'must be at least 6 characters').max(1024);

export const userCreate = z.strictObject({
  username,
  password,
  role: role.default('user'),
  email: z.email().optional(),
  servers: z.array(nameRef).max(1000).optional(),
  groups: z.array(nameRef).max(1000).optional(),
});
export const userUpdate = z.strictObject({
  password: password.optional(),
  role: role.optional(),
  email: z.email().nullable().optional(),
  servers: z.array(nameRef).max(1000).optional(),
  groups: z.array(nameRef).max(1000).optional(),
});
export const passwordChange = z.strictObject({ currentPassword: z.string().min(1, 'is required'), newPassword: password });

export type UserStats = {
  totalUsers: number;
  adminUsers: number;
  regularUsers: number;
  usersPerServer: Record<string, number>;
  usersPerGroup: Record<string, number>;
};
