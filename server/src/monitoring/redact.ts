// Credentials that show up in upstream output: bearer tokens, key=value secrets.
const secretPatterns: Array<[RegExp, string]> = [
  [/(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[REDACTED]'],
  [/((?:authorization|api[_-]?key|x-api-key|token|secret|password|passwd)["']?\s*[:=]\s*["']?)[^\s"',;]+/gi, '$1[REDACTED]'],
  // user:password@ in URLs
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, '$1[REDACTED]@'],
];

/** Longest upstream text (an error, a response body) shown to a caller. */
export const PUBLIC_TEXT_MAX = 300;

/**
 * Keeps secrets out of anything Hub writes or shows: values it knows to be
 * secret (Hub's own, upstream credentials) and secret-looking patterns.
 */
export class Redactor {
  private readonly secrets = new Set<string>();

  /** Values that must never appear in output (short ones would redact ordinary words). */
  add(values: Iterable<string | undefined>): void {
    for (const v of values) if (v && v.length >= 6) this.secrets.add(v);
  }

  redact(text: string): string {
    let out = text;
    for (const [re, to] of secretPatterns) out = out.replace(re, to);
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join('[REDACTED]');
    return out;
  }

  /** Text from outside Hub (an upstream's error or body) as a caller may see it: redacted and cut short. */
  forCaller(text: string): string;
  forCaller(text: string | null): string | null;
  forCaller(text: string | null): string | null {
    if (text === null) return null;
    const clean = this.redact(text);
    return clean.length > PUBLIC_TEXT_MAX ? `${clean.slice(0, PUBLIC_TEXT_MAX)}… (${clean.length - PUBLIC_TEXT_MAX} more characters)` : clean;
  }
}
