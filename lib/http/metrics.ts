// Prometheus metrics of a reglab HTTP service (prom-client): its process (CPU, memory, event loop,
// garbage collection) and its requests by route and status, served at GET /metrics in Prometheus'
// text format. A service adds its own metrics to the registry installMetrics answers.
import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * Request durations in seconds: a lab's requests take from a millisecond (a cached read) to tens
 * of seconds (a payment waiting for its node's final answer).
 */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The process's own metrics, one registry per process: each app made in a process (the tests make
 * many) would otherwise start its own event-loop monitor and garbage-collection observer. The event
 * loop is sampled every 100 ms rather than prom-client's 10 ms: a lab's idle services should not wake
 * a hundred times a second to be measured.
 */
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 100 });
  }
  return processRegistry;
}

export interface MetricsOptions {
  /** The /metrics route's config (the wallet server's `auth: 'public'`: a scraper holds no bearer token). */
  routeConfig?: FastifyContextConfig;
}

/**
 * Times every request of `app` (the route's pattern, not its URL, so that ids do not each make a
 * series) and serves GET /metrics: the process's metrics, then the registry's, which is returned for
 * the service's own.
 */
export function installMetrics(app: FastifyInstance, options: MetricsOptions = {}): Registry {
  const registry = new Registry();
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Requests answered, by method, route pattern (unmatched: no route) and status code, and how long each took',
    labelNames: ['method', 'route', 'status_code'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    requests.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });
  app.get(
    '/metrics',
    {
      config: options.routeConfig,
      schema: {
        summary: "The service's metrics, in Prometheus' text format",
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const text = (await processMetrics().metrics()) + (await registry.metrics());
      return reply.type(registry.contentType).send(text);
    },
  );
  return registry;
}
