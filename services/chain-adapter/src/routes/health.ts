import type { FastifyInstance } from 'fastify';
import type { ChainDriver } from '../../../../lib/chain/types.js';
import type { Indexer } from '../indexer.js';

interface Check {
  ok: boolean;
  height?: number;
  error?: string;
}

const check = async (read: () => Promise<number>): Promise<Check> => {
  try {
    return { ok: true, height: await read() };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
};

const checkSchema = {
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean' }, height: { type: 'integer' }, error: { type: 'string' } },
} as const;

export function healthRoutes(app: FastifyInstance, driver: ChainDriver, indexer: Indexer, network: string) {
  const healthSchema = {
    type: 'object',
    required: ['status', 'network', 'node', 'indexer'],
    properties: {
      status: { type: 'string', enum: ['ok', 'degraded'] },
      network: { type: 'string' },
      node: checkSchema,
      indexer: checkSchema,
      indexer_lag_blocks: { type: 'integer', description: 'node height minus indexed height' },
    },
  } as const;
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Checks the node and the indexer; 503 when either fails',
        response: { 200: healthSchema, 503: healthSchema },
      },
    },
    async (_request, reply) => {
      const [node, indexed] = await Promise.all([
        check(() => driver.getBlockCount()),
        check(() => indexer.tipHeight()),
      ]);
      const ok = node.ok && indexed.ok;
      const lag =
        node.height !== undefined && indexed.height !== undefined
          ? { indexer_lag_blocks: node.height - indexed.height }
          : {};
      return reply
        .status(ok ? 200 : 503)
        .send({ status: ok ? 'ok' : 'degraded', network, node, indexer: indexed, ...lag });
    },
  );
}
