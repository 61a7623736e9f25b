import type { FastifyInstance } from 'fastify';
import { lndFeeEstimates, lndFeeEstimatesSchema } from '../../../../lib/chain/lnd-fee-estimates.js';
import { describeError, DomainError, unavailable } from '../../../../lib/errors.js';
import { errorResponses } from '../../../../lib/http/errors.js';
import { feesView, setFeeSpike } from '../../lab/fee-spike.js';
import type { ApiDeps } from '../deps.js';
import { answer, labErrors, labParams } from '../schemas.js';

type Lab = { Params: { name: string } };

const FEES_FIELDS = '{ lab, policy, satPerVbyte?, height, spike?: { satPerVbyte, untilHeight, active, blocksLeft } }';

const spikeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['sat_per_vbyte', 'blocks'],
  properties: {
    sat_per_vbyte: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description: "every rate raised to at least this (at most lnd's sweeper.maxfeerate, 1000)",
    },
    blocks: { type: 'integer', minimum: 1, maximum: 10_000, description: 'for this many blocks from now' },
  },
} as const;

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

  app.get<Lab>(
    '/labs/:name/fees',
    {
      schema: {
        summary:
          "The lab's fee market: its policy, the chain's height, and the last fee spike with the blocks it has left",
        params: labParams,
        response: { 200: answer(FEES_FIELDS), ...labErrors },
      },
    },
    async (request) => feesView(manager.session(request.params.name)),
  );

  app.post<Lab & { Body: { sat_per_vbyte: number; blocks: number } }>(
    '/labs/:name/fees/spike',
    {
      schema: {
        summary:
          'A fee spike: every fee rate of the lab (lnd, the chain adapter, Electrum, LDK through them) raised to at least sat_per_vbyte for the next `blocks` blocks; the chain adapter and the indexer are started again with it',
        params: labParams,
        body: spikeBody,
        response: { 200: answer(FEES_FIELDS), ...labErrors },
      },
    },
    async (request) => {
      const name = request.params.name;
      const { sat_per_vbyte, blocks } = request.body;
      return setFeeSpike(
        manager.session(name),
        manager.faults(name),
        () => manager.save(),
        (height) => ({
          satPerVbyte: sat_per_vbyte,
          untilHeight: height + blocks,
        }),
      );
    },
  );

  app.delete<Lab>(
    '/labs/:name/fees/spike',
    {
      schema: {
        summary: 'End the fee spike now: the rates are back to the policy at once',
        params: labParams,
        response: { 200: answer(FEES_FIELDS), ...labErrors },
      },
    },
    async (request) => {
      const name = request.params.name;
      const spike = manager.get(name).feeSpike;
      return setFeeSpike(
        manager.session(name),
        manager.faults(name),
        () => manager.save(),
        (height) => ({
          satPerVbyte: spike?.satPerVbyte ?? 1,
          untilHeight: Math.min(spike?.untilHeight ?? height, height),
        }),
      );
    },
  );
}
