// GET /metrics: the control plane's metrics (its process, its API's requests, its labs), and GET
// /metrics/targets: the lab services that serve metrics of their own, in the form of Prometheus'
// HTTP service discovery, each with its lab's and its service's name as labels. Both are read
// routes: open without the token, like /health and the labs' state, so that a Prometheus with no
// secret scrapes a workshop's control plane; a scraper that sends the bearer token is answered alike.
import type { FastifyInstance } from 'fastify';
import { installMetrics } from '../../../lib/http/metrics.js';
import type { ApiDeps } from '../api/deps.js';
import type { LabEvent } from '../lab/events.js';
import { kindDefinition } from '../nodes/registry.js';
import { ChannelSampler } from './channel-sampler.js';
import { LabMetrics } from './lab-metrics.js';

/** One entry of Prometheus' HTTP service discovery. */
interface ScrapeTarget {
  targets: string[];
  labels: Record<string, string>;
}

const targetSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['targets', 'labels'],
    properties: {
      targets: { type: 'array', items: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
} as const;

export function metricsRoutes(app: FastifyInstance, { manager, jobs }: ApiDeps): void {
  const registry = installMetrics(app);
  const metrics = new LabMetrics(
    registry,
    {
      labs: () => manager.list(),
      session: (lab) => manager.sessionIfUp(lab),
      jobCounts: () => jobs.counts(),
      activity: (lab) => (manager.sessionIfUp(lab) ? manager.activity(lab).status() : undefined),
    },
    new ChannelSampler(),
  );
  const observe = (event: LabEvent) => metrics.observe(event);
  manager.events.on('event', observe);
  app.addHook('onClose', async () => {
    manager.events.off('event', observe);
  });

  app.get(
    '/metrics/targets',
    {
      schema: {
        summary: "The lab services that serve GET /metrics, as Prometheus' HTTP service discovery (http_sd_configs)",
        response: { 200: targetSchema },
      },
    },
    async (): Promise<ScrapeTarget[]> =>
      manager.list().flatMap((lab) => {
        const session = manager.sessionIfUp(lab.name);
        if (!session) return [];
        return Object.values(lab.services).flatMap((service) => {
          const port = kindDefinition(service.kind).metricsPort;
          if (port === undefined) return [];
          return [
            {
              targets: [session.host.reach(service.name, port)],
              labels: { lab: lab.name, service: service.name, kind: service.kind },
            },
          ];
        });
      }),
  );
}
