import { readFileSync } from 'node:fs';
import path from 'node:path';
import { hostname } from 'node:os';
import { z } from 'zod';

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Durations like `24h`, `30m`, `7d`, `3600` (seconds). */
export const duration = z
  .string()
  .regex(/^\d+\s*(s|m|h|d|w)?$/, 'must be a duration such as 3600, 30m, 24h or 7d')
  .transform((v) => {
    const m = /^(\d+)\s*([smhdw])?$/.exec(v)!;
    const unit = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[(m[2] ?? 's') as 's'];
    return Number(m[1]) * unit;
  })
  .refine((s) => s > 0, 'must be longer than zero');

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    MCPHUB_SETTING_PATH: z.string().min(1).default('data/mcp_settings.json'),
    AUTH_USERNAME: z.string().min(1).max(200).default('admin'),
    AUTH_PASSWORD: z.string().min(6, 'must be at least 6 characters').max(1024).optional(),
    JWT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    JWT_EXPIRES_IN: duration.default(86400),
    HTTPS_ENABLED: boolish.default(false),
    SSL_CERT_PATH: z.string().optional(),
    SSL_KEY_PATH: z.string().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    MCP_SESSION_TTL: duration.default(1800),
    MCP_PAGE_SIZE: z.coerce.number({ message: 'must be a number' }).int().min(1).max(100_000).default(1000),
    LOG_ROTATION: z.enum(['daily', 'hourly', 'size'], { message: 'must be daily, hourly or size' }).default('daily'),
    LOG_MAX_SIZE: z.string().regex(/^\d+[kmg]?$/i, 'must be a size such as 500k, 100m or 1g').default('100m'),
    LOG_MAX_FILES: z.coerce.number().int().min(1).max(1000).default(7),
    MCP_ALLOWED_HOSTS: z.string().default(''),
    BODY_LIMIT: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(1024 * 1024),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    /** The PostgreSQL schema Hub's tables live in (several Hubs can share one database). */
    HUB_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier').default('hub'),
    /** A replica's name in logs and the cluster view; the host name and process id when unset. */
    HUB_REPLICA_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores').optional(),
    HUB_ALLOWED_ENV_VARS: z
      .string()
      .regex(/^\s*([A-Za-z_][A-Za-z0-9_]*\*?\s*(,\s*|$))*$/, 'must be a comma list of variable names, each optionally ending in *')
      .optional(),
  })
  .superRefine((env, ctx) => {
    if (env.HTTPS_ENABLED) {
      for (const key of ['SSL_CERT_PATH', 'SSL_KEY_PATH'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when HTTPS_ENABLED is true' });
      }
    }
  });

export type Config = Readonly<{
  port: number;
  host: string;
  settingsPath: string;
  dataDir: string;
  adminUsername: string;
  adminPassword?: string;
  jwtSecret?: string;
  jwtExpiresInSeconds: number;
  https?: Readonly<{ cert: Buffer; key: Buffer }>;
  logLevel: string;
  bodyLimit: number;
  /** Folder of the built console; absent when it is not built. */
  consoleDir: string;
  version: string;
  /**
   * What `${VAR}` in server configs may expand to: the environment at boot
   * without Hub's own variables, narrowed to `HUB_ALLOWED_ENV_VARS` when set.
   */
  expansionEnv: Readonly<Record<string, string>>;
  /** `HUB_ALLOWED_ENV_VARS` as given (names, `PREFIX_*`); null when unset. */
  allowedEnvVars: readonly string[] | null;
  /** Values of Hub's own secret variables, never to appear in any output. */
  ownSecrets: readonly string[];
  /** Agent MCP sessions idle this long are closed. */
  mcpSessionTtlSeconds: number;
  /** Items per page of the tools, prompts and resources lists Hub serves agents. */
  mcpPageSize: number;
  logFiles: Readonly<{ rotation: 'daily' | 'hourly' | 'size'; maxSize: string; maxFiles: number }>;
  /** Extra host names the MCP routes answer to (DNS-rebinding defence). */
  allowedHosts: readonly string[];
  /** PostgreSQL for several replicas (`DATABASE_URL`); absent: the settings file (lowdb). */
  database?: Readonly<{ url: string; schema: string }>;
  /** This process's name among replicas. */
  replicaId: string;
}>;

export class ConfigError extends Error {}

/**
 * Variables Hub itself reads, or that its libraries read (libpq's PG*), and
 * any of Hub's namespaces: never reachable through `${VAR}`, whoever writes it.
 */
const hubNames = new Set([...Object.keys(envSchema.shape), 'REDIS_URL', 'NODE_OPTIONS']);
const hubPrefixes = /^(HUB_|MCPHUB_|JWT_|AUTH_|SSL_|PG[A-Z]*$)/;
export const isHubVariable = (name: string) => hubNames.has(name) || hubPrefixes.test(name);

export function envVarAllowed(name: string, allowList: readonly string[] | null): boolean {
  if (isHubVariable(name)) return false;
  if (!allowList) return true;
  return allowList.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

function expansionEnvOf(env: Record<string, string | undefined>, allowList: readonly string[] | null): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(env)) if (v !== undefined && envVarAllowed(k, allowList)) out[k] = v;
  return Object.freeze(out);
}

function readPem(file: string, variable: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(`${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

const here = path.dirname(new URL(import.meta.url).pathname);
const defaultConsoleDir = path.resolve(here, '../../client/dist');
const version: string = JSON.parse(readFileSync(path.resolve(here, '../package.json'), 'utf8')).version;

/** Parses the environment once at boot; a bad value names its variable. */
export function loadConfig(env: Record<string, string | undefined>, overrides: Partial<Config> = {}): Config {
  // An empty variable (`AUTH_PASSWORD=` in a .env file) means "not set".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${msg}`);
  }
  const e = parsed.data;
  const settingsPath = path.resolve(e.MCPHUB_SETTING_PATH);
  const allowedEnvVars = e.HUB_ALLOWED_ENV_VARS === undefined ? null : Object.freeze(e.HUB_ALLOWED_ENV_VARS.split(',').map((v) => v.trim()).filter(Boolean));
  const ownSecrets = [e.JWT_SECRET, e.AUTH_PASSWORD, present.DATABASE_URL, present.PGPASSWORD, present.REDIS_URL].filter((v): v is string => Boolean(v));
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    settingsPath,
    dataDir: path.dirname(settingsPath),
    adminUsername: e.AUTH_USERNAME,
    adminPassword: e.AUTH_PASSWORD,
    jwtSecret: e.JWT_SECRET,
    jwtExpiresInSeconds: e.JWT_EXPIRES_IN,
    https: e.HTTPS_ENABLED
      ? Object.freeze({ cert: readPem(e.SSL_CERT_PATH!, 'SSL_CERT_PATH'), key: readPem(e.SSL_KEY_PATH!, 'SSL_KEY_PATH') })
      : undefined,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    consoleDir: defaultConsoleDir,
    version,
    expansionEnv: expansionEnvOf(present, allowedEnvVars),
    allowedEnvVars,
    ownSecrets: Object.freeze(ownSecrets),
    mcpSessionTtlSeconds: e.MCP_SESSION_TTL,
    mcpPageSize: e.MCP_PAGE_SIZE,
    logFiles: Object.freeze({ rotation: e.LOG_ROTATION, maxSize: e.LOG_MAX_SIZE.toLowerCase(), maxFiles: e.LOG_MAX_FILES }),
    database: e.DATABASE_URL ? Object.freeze({ url: e.DATABASE_URL, schema: e.HUB_DB_SCHEMA }) : undefined,
    replicaId: e.HUB_REPLICA_ID ?? `${hostname()}-${process.pid}`,
    allowedHosts: Object.freeze(e.MCP_ALLOWED_HOSTS.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)),
    ...overrides,
  };
  return Object.freeze(config);
}
