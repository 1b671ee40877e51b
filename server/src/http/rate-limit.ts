import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Services } from '../services';
import { rateLimitStore } from '../cluster/counters';

export const rateLimitDefaults = {
  enabled: false,
  windowMs: 900_000,
  max: 100,
  message: 'Too many requests, please try again later.',
  standardHeaders: true,
  legacyHeaders: false,
  loginMax: 10,
};

export function rateLimitConfig(services: Services) {
  return { ...rateLimitDefaults, ...services.store.get().systemConfig.rateLimit };
}

/**
 * Requests per address per window on the REST API, off unless
 * `rateLimit.enabled`. Limits and message are read per request, so changes
 * apply at once; the header style is fixed at start.
 */
export async function registerRateLimit(app: FastifyInstance, services: Services): Promise<void> {
  const cfg = () => rateLimitConfig(services);
  const atStart = cfg();
  await app.register(rateLimit, {
    global: true,
    // A load balancer's health checks must never be limited: a 429 there takes every replica out.
    allowList: (req) => !cfg().enabled || req.url === '/health',
    max: () => cfg().max,
    timeWindow: () => cfg().windowMs,
    enableDraftSpec: atStart.standardHeaders,
    addHeaders: atStart.standardHeaders
      ? { 'ratelimit-limit': true, 'ratelimit-remaining': true, 'ratelimit-reset': true, 'retry-after': true }
      : { 'x-ratelimit-limit': atStart.legacyHeaders, 'x-ratelimit-remaining': atStart.legacyHeaders, 'x-ratelimit-reset': atStart.legacyHeaders, 'retry-after': true },
    // Replicas count together (synced every 250 ms, never a database round trip per request).
    ...(services.cluster.requestCounters ? { store: rateLimitStore(services.cluster.requestCounters) } : {}),
    errorResponseBuilder: (_req, context) => ({ statusCode: context.statusCode, message: cfg().message }),
  });
}
