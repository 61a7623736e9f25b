import type { FastifyInstance } from 'fastify';
import { lndFeeEstimatesSchema } from '../../../../lib/chain/lnd-fee-estimates.js';
import type { FeeEstimator } from '../fees.js';
import { feeRecommendationSchema } from '../esplora/schemas.js';

export function feeRoutes(app: FastifyInstance, fees: FeeEstimator) {
  // The spec names /api/v1/fees/recommended and /api/fees and leaves open which is binding, and its
  // client (base URL ending in /api) asks {base}/fees/recommended: all three answer the same.
  for (const url of ['/api/v1/fees/recommended', '/api/fees', '/api/fees/recommended']) {
    app.get(
      url,
      {
        schema: {
          tags: ['fees'],
          summary: 'Recommended fee rates in sat/vB',
          response: { 200: feeRecommendationSchema },
        },
      },
      () => fees.recommended(),
    );
  }
  app.get(
    '/api/fee-estimates',
    {
      schema: {
        tags: ['fees'],
        summary: "Esplora's fee estimates: confirmation target (blocks) -> sat/vB",
        response: { 200: { type: 'object', additionalProperties: { type: 'integer' } } },
      },
    },
    () => fees.estimates(),
  );
  app.get(
    '/api/fees/lnd',
    {
      schema: {
        tags: ['fees'],
        summary: "The same rates in lnd's fee-service format (lnd --fee.url): target -> sat per 1000 vB",
        response: { 200: lndFeeEstimatesSchema },
      },
    },
    () => fees.lnd(),
  );
}
