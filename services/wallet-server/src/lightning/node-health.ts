import type { FastifyInstance } from 'fastify';
import type { LightningClient } from '../../../../lib/lightning/client.js';
import { invalid } from '../errors.js';
import { errors } from '../schemas.js';
import { nodeCall } from './node-call.js';

const str = { type: 'string' } as const;

export function nodeHealthRoutes(node: LightningClient) {
  return async (app: FastifyInstance): Promise<void> => {
    app.health.register(node.implementation, async () => {
      const info = await node.info();
      return {
        alias: info.alias ?? null,
        pubkey: info.pubkey,
        block_height: info.height,
        synced_to_chain: info.synced,
      };
    });

    app.get<{ Querystring: { asset_id?: string; asset_ids?: string } }>(
      '/admin/node-health',
      {
        config: { auth: 'admin' },
        schema: {
          tags: ['admin'],
          summary:
            'The Lightning node: identity, sync, peers, channels, balances; RGB asset balances (RLN only) for asset_id / asset_ids (comma-separated)',
          querystring: {
            type: 'object',
            properties: {
              asset_id: { type: 'string', minLength: 1, maxLength: 200 },
              asset_ids: { type: 'string', minLength: 1, maxLength: 4000 },
            },
          },
          response: {
            200: {
              type: 'object',
              properties: {
                kind: str,
                alias: { type: ['string', 'null'] },
                pubkey: str,
                synced: { type: 'boolean' },
                height: { type: 'integer' },
                peers: { type: 'integer' },
                channels: {
                  type: 'object',
                  properties: {
                    active: { type: 'integer' },
                    pending: { type: 'integer' },
                    inactive: { type: 'integer' },
                  },
                },
                balances: { type: 'object', properties: { onchain_sat: str, lightning_local_msat: str } },
                assets: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      asset_id: str,
                      settled: str,
                      future: str,
                      spendable: str,
                      offchain_outbound: str,
                      offchain_inbound: str,
                    },
                  },
                },
              },
            },
            ...errors(400, 401, 403, 502),
          },
        },
      },
      async (request) => {
        const ids = [request.query.asset_id, ...(request.query.asset_ids?.split(',') ?? [])]
          .map((s) => s?.trim())
          .filter((s): s is string => !!s);
        if (ids.length && !node.assets)
          throw invalid(
            'ASSETS_NEED_RGB_NODE',
            `RGB assets need an RGB Lightning Node (NODE_KIND=rln); this server runs on ${node.implementation}`,
          );
        const [info, onchain, lightningLocalMsat, assets] = await nodeCall(node.implementation, () =>
          Promise.all([
            node.info(),
            node.onchainBalance(),
            node.channelBalanceMsat(),
            ids.length ? node.assets!.balances([...new Set(ids)]) : Promise.resolve([]),
          ]),
        );
        return {
          kind: node.implementation,
          ...info,
          alias: info.alias ?? null,
          balances: {
            onchain_sat: String(onchain.confirmedSat),
            lightning_local_msat: lightningLocalMsat.toString(),
          },
          assets: assets.map((a) => ({
            asset_id: a.assetId,
            settled: a.settled.toString(),
            future: a.future.toString(),
            spendable: a.spendable.toString(),
            offchain_outbound: a.offchainOutbound.toString(),
            offchain_inbound: a.offchainInbound.toString(),
          })),
        };
      },
    );
  };
}
