// The rgb node's HTTP API: the on-chain part of RGB Lightning Node's API, with RLN's paths, bodies
// and error body `{error, code, name}` (not reglab's), so the lab and RLN clients drive rgb and rln
// nodes alike. OpenAPI at /openapi.json.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { createService } from '../../../lib/http/service.js';
import type { RgbNode } from './node/rgb-node.js';
import { rlnErrorHandler } from './rln/http.js';
import { assetRoutes } from './routes/assets.js';
import { bitcoinRoutes } from './routes/bitcoin.js';
import { lightningRoutes } from './routes/lightning.js';
import { nodeRoutes } from './routes/node.js';
import { transferRoutes } from './routes/transfers.js';

export async function buildApp(options: {
  node: RgbNode;
  logger?: FastifyServerOptions['logger'];
}): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab rgb node',
    description:
      "An RGB wallet on rgb-lib serving the on-chain part of RGB Lightning Node's API, with RLN's paths, bodies and error body {error, code, name}. Lightning routes are refused: this node has no Lightning side.",
    version: '0.1.0',
    logger: options.logger ?? false,
    openapi: {
      tags: [
        { name: 'node', description: 'init, unlock, lock and what the node is' },
        { name: 'bitcoin', description: 'the vanilla and colored bitcoin wallet' },
        { name: 'assets', description: 'issuing and holding RGB assets' },
        { name: 'transfers', description: 'invoices and on-chain asset transfers through a consignment proxy' },
        { name: 'lightning', description: 'RLN Lightning routes, refused here' },
      ],
    },
  });
  await app.register(async (api) => {
    api.setErrorHandler(rlnErrorHandler);
    nodeRoutes(api, options.node);
    bitcoinRoutes(api, options.node);
    assetRoutes(api, options.node);
    transferRoutes(api, options.node);
    lightningRoutes(api, options.node);
  });
  return app;
}
