import { randomBytes } from 'node:crypto';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT, jwtVerify, errors } from 'jose';

export type TokenClaims = { username: string; jti: string; exp: number; version: number };

export class TokenService {
  private constructor(
    /** The signing secret, so the redactor can keep it out of every output. */
    readonly secret: string,
    private readonly expiresInSeconds: number,
    private readonly key = new TextEncoder().encode(secret),
  ) {}

  /** Uses the configured secret, else one kept in the data folder so restarts keep sessions. */
  /** `shared`: where replicas keep one secret between them (the database), instead of the data folder. */
  static async create(opts: { secret?: string; dataDir: string; expiresInSeconds: number; shared?: (create: () => string) => Promise<string> }): Promise<TokenService> {
    const secret =
      opts.secret ??
      (opts.shared ? await opts.shared(() => randomBytes(48).toString('base64url')) : await loadOrCreateSecret(path.join(opts.dataDir, '.jwt_secret')));
    return new TokenService(secret, opts.expiresInSeconds);
  }

  get expiresIn(): number {
    return this.expiresInSeconds;
  }

  /** A session token; `version` is the user's token version (see UserRecord.tokenVersion). */
  async sign(username: string, version = 0): Promise<string> {
    return new SignJWT({ ver: version })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(username)
      .setJti(randomBytes(12).toString('base64url'))
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.expiresInSeconds)
      .sign(this.key);
  }

  /** Returns the claims, or an error message fit for a 401. */
  async verify(token: string): Promise<TokenClaims | { error: string }> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      if (!payload.sub || !payload.jti || !payload.exp) return { error: 'Invalid token' };
      const version = typeof payload.ver === 'number' ? payload.ver : 0;
      return { username: payload.sub, jti: payload.jti, exp: payload.exp, version };
    } catch (err) {
      if (err instanceof errors.JWTExpired) return { error: 'Token expired' };
      return { error: 'Invalid token' };
    }
  }
}

async function loadOrCreateSecret(file: string): Promise<string> {
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(48).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, secret + '\n', { mode: 0o600 });
  return secret;
}
