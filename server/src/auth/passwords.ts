// Loaded on the first login, not at start: Hub idles without them.
const argon2 = () => import('@node-rs/argon2');
const bcrypt = () => import('bcryptjs').then((m) => m.default);

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password); // argon2id with the library's recommended cost
}

export function isLegacyHash(stored: string): boolean {
  return /^\$2[aby]\$/.test(stored);
}

/** Verifies against argon2 hashes and MCPHub's bcrypt hashes. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    if (isLegacyHash(stored)) return await (await bcrypt()).compare(password, stored);
    if (stored.startsWith('$argon2')) return await (await argon2()).verify(stored, password);
  } catch {
    // A corrupt hash never matches.
  }
  return false;
}

// Verified against when the user does not exist, so timing does not reveal usernames.
let decoy: Promise<string> | null = null;
export async function burnVerification(password: string): Promise<void> {
  decoy ??= hashPassword('decoy-password-for-timing');
  await verifyPassword(await decoy, password);
}
