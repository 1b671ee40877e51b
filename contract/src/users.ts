import { z } from 'zod';

export const roles = ['admin', 'manager', 'user', 'viewer'] as const;
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
  passwordChangedAt: z.string().optional(),
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
};

export function roleOf(user: Pick<UserRecord, 'role' | 'isAdmin'>): Role {
  return user.role ?? (user.isAdmin ? 'admin' : 'user');
}
