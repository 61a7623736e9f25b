import type { FastifyInstance } from 'fastify';
import { lndFeeEstimates, lndFeeEstimatesSchema } from '../../../../lib/chain/lnd-fee-estimates.js';
import { describeError, DomainError, unavailable } from '../../../../lib/errors.js';
import { errorResponses } from '../../../../lib/http/errors.js';
import type { ApiDeps } from '../deps.js';
import { labParams } from '../schemas.js';

/** The lab's fee market: what its lnd nodes read as their fee service (lab.yaml `fees`). */
export function feeRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  app.get<{ Params: { name: string } }>(
    '/labs/:name/fees/lnd',
    {
      schema: {
        summary:
          "The lab's fee rates by its fee policy, in lnd's fee-service format (the lab's lnd nodes read it as --fee.url): target -> sat per 1000 vB; 503 while the chain node does not answer",
        params: labParams,
        response: { 200: lndFeeEstimatesSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const lab = request.params.name;
      manager.get(lab);
      try {
        return lndFeeEstimates(await manager.feeRates(lab));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw unavailable(
          'NODE_UNAVAILABLE',
          `lab ${lab}'s chain node does not answer (${describeError(error)}): no fee rate until it does`,
        );
      }
    },
  );
}
