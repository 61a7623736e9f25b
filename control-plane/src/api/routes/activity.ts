// The lab's payment activity: start (random payments, defined flows), stop, its status, and the
// record of each payment as JSON or CSV.
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../../../lib/http/errors.js';
import { planOf } from '../../activity/plan.js';
import { activityRequestSchema, type ActivityRequest } from '../../activity/request.js';
import { recordsAsCsv } from '../../activity/records.js';
import type { ApiDeps } from '../deps.js';
import { answer, labErrors, labParams } from '../schemas.js';

type Name = { Params: { name: string } };

const STATUS_FIELDS =
  '{ lab, running, startedAt, stoppedAt, stopReason, inFlight, attempted, succeeded, failed, pending, paymentsPerSecond, amountSatSucceeded, feeMsatPaid, failuresByReason, plan }';

const recordsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    format: {
      enum: ['json', 'csv'],
      default: 'json',
      description: 'json: { payments: [...] }; csv: a header line, then a line each',
    },
  },
} as const;

export function activityRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  app.get<Name>(
    '/labs/:name/activity',
    {
      schema: {
        summary: "The lab's payment activity: running or not, its figures (failures by reason), its plan",
        params: labParams,
        response: { 200: answer(STATUS_FIELDS), ...errorResponses(404, 409) },
      },
    },
    async (request) => manager.activity(request.params.name).status(),
  );

  app.post<Name & { Body: ActivityRequest }>(
    '/labs/:name/activity',
    {
      schema: {
        summary:
          "Start payment activity: random keysends weighted by channel capacity (a seed replays them), defined flows, or both; an empty body runs lab.yaml's activity, else random with the defaults",
        params: labParams,
        body: activityRequestSchema,
        response: { 200: answer(STATUS_FIELDS), ...labErrors },
      },
    },
    async (request) => {
      const name = request.params.name;
      return manager.activity(name).start(planOf(request.body ?? {}, manager.get(name).spec.activity));
    },
  );

  app.delete<Name>(
    '/labs/:name/activity',
    {
      schema: {
        summary: 'Stop the payment activity (payments under way end and are recorded); nothing to stop is no error',
        params: labParams,
        response: { 200: answer(STATUS_FIELDS), ...errorResponses(401, 404, 409) },
      },
    },
    async (request) => manager.activity(request.params.name).stop(),
  );

  app.get<Name & { Querystring: { format: 'json' | 'csv' } }>(
    '/labs/:name/activity/payments',
    {
      schema: {
        summary:
          'Each payment of the last (or current) activity: time, source, seq, from, to, amount, fee, hops, latency, outcome and, for a failure, its code and the reason',
        params: labParams,
        querystring: recordsQuery,
        response: {
          200: {
            description: '{ payments: [...] } (JSON), or CSV text',
            content: {
              'application/json': { schema: answer('{ payments: [...] }') },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const records = manager.activity(request.params.name).records();
      if (request.query.format === 'csv') {
        reply.type('text/csv; charset=utf-8');
        return recordsAsCsv(records);
      }
      return { payments: records };
    },
  );
}
