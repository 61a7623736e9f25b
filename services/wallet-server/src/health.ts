import type { FastifyInstance } from 'fastify';

export interface CheckResult {
  ok: boolean;
  latency_ms: number;
  error?: string;
  /** Anything else a check wants to report (e.g. a node's block height). */
  details?: Record<string, unknown>;
}

/** Named dependency checks reported by GET /health. Core registers postgres and redis; other
 * parts (the Lightning side) register theirs with app.health.register('lnd', fn). */
export class HealthRegistry {
  private readonly checks = new Map<string, () => Promise<Record<string, unknown> | void>>();

  register(name: string, check: () => Promise<Record<string, unknown> | void>): void {
    this.checks.set(name, check);
  }

  async run(timeoutMs = 2_000): Promise<{ status: 'ok' | 'degraded'; checks: Record<string, CheckResult> }> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        const started = performance.now();
        let timer: NodeJS.Timeout | undefined;
        try {
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          });
          const details = await Promise.race([check(), timeout]);
          return [
            name,
            { ok: true, latency_ms: Math.round(performance.now() - started), ...(details ? { details } : {}) },
          ] as const;
        } catch (err) {
          return [
            name,
            {
              ok: false,
              latency_ms: Math.round(performance.now() - started),
              error: err instanceof Error ? err.message : String(err),
            },
          ] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const checks = Object.fromEntries(entries) as Record<string, CheckResult>;
    return { status: Object.values(checks).every((c) => c.ok) ? 'ok' : 'degraded', checks };
  }
}

const healthBody = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded'] },
    version: { type: 'string' },
    checks: { type: 'object', additionalProperties: { type: 'object', additionalProperties: true } },
  },
} as const;

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.health.register('postgres', async () => {
    await app.db.query('select 1');
    return { kind: app.db.kind };
  });
  app.health.register('redis', async () => {
    await app.redis.ping();
  });
  app.get(
    '/health',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['health'],
        summary:
          'Service health with one entry per dependency (postgres, redis, the Lightning node): 200 when all are ok, 502 with the same body (status degraded) when one fails',
        response: { 200: healthBody, 502: healthBody },
      },
    },
    async (_request, reply) => {
      const health = await app.health.run();
      if (health.status !== 'ok') reply.code(502);
      return { version: '0.1.0', ...health };
    },
  );
}
