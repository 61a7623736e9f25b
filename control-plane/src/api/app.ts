import type { FastifyInstance } from 'fastify';
import { createService } from '../../../lib/http/service.js';
import { dashboardPlugin } from '../dashboard/plugin.js';
import { metricsRoutes } from '../metrics/routes.js';
import { installAccess } from './access.js';
import type { ApiDeps } from './deps.js';
import { mapPartError } from './errors.js';
import { activityRoutes } from './routes/activity.js';
import { assetRoutes } from './routes/assets.js';
import { eventRoutes } from './routes/events.js';
import { feeRoutes } from './routes/fees.js';
import { labRoutes } from './routes/labs.js';
import { networkRoutes } from './routes/network.js';
import { nodeRoutes } from './routes/nodes.js';
import { serviceRoutes } from './routes/services.js';
import { snapshotRoutes } from './routes/snapshots.js';
import { workRoutes } from './routes/work.js';

export interface ControlPlaneApp extends ApiDeps {
  /** Called by POST /shutdown (the CLI asks for it when the last lab is down). */
  shutdown(): void;
  /** Set when the control plane listens beyond loopback: actions and secrets then need it. */
  token?: string;
  logger?: boolean;
  /** Serve GET /metrics and /metrics/targets (the default); false counts nothing. */
  metrics?: boolean;
}

export async function buildControlPlaneApp(options: ControlPlaneApp): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab control plane',
    description:
      'Labs, their services and nodes, the work queued on them, and fault commands. See docs/control-plane.md.',
    version: '0.2.0',
    logger: options.logger ?? false,
    mapError: mapPartError,
  });
  installAccess(
    app,
    options.token,
    (lab) => options.manager.list().find((known) => known.name === lab)?.secrets.accessToken,
  );
  labRoutes(app, options);
  workRoutes(app, options);
  serviceRoutes(app, options);
  networkRoutes(app, options);
  nodeRoutes(app, options);
  assetRoutes(app, options);
  eventRoutes(app, options);
  feeRoutes(app, options);
  snapshotRoutes(app, options);
  activityRoutes(app, options);
  if (options.metrics !== false) metricsRoutes(app, options);
  await app.register(dashboardPlugin);
  app.post(
    '/shutdown',
    {
      schema: {
        summary: 'Stop the control plane (labs keep running)',
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async () => {
      setImmediate(options.shutdown);
      return { status: 'shutting down' };
    },
  );
  return app;
}
