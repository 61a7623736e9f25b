import type { FastifyInstance } from 'fastify';
import type { FeeEstimator } from '../fees.js';
import { feeRecommendationSchema } from '../esplora/schemas.js';

export function feeRoutes(app: FastifyInstance, fees: FeeEstimator) {
  // The spec names both paths and leaves open which is binding; both answer the same.
  for (const url of ['/api/v1/fees/recommended', '/api/fees']) {
    app.get(url, { schema: { tags: ['fees'], summary: 'Recommended fee rates in sat/vB', response: { 200: feeRecommendationSchema } } }, () => fees.recommended());
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
}
