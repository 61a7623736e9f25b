// Work queued on a lab (BullMQ): each route validates, enqueues, and answers 202 with the job, or
// the finished job with ?wait=true.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid, notFound } from '../../../../lib/errors.js';
import { errorResponses } from '../../../../lib/http/errors.js';
import type { JobQueues, JobRequest } from '../../jobs.js';
import { assertRegtestAddress, channelToClose, requireReady } from '../../lab/operations.js';
import { CHAIN_SERVICE } from '../../nodes/btcd/index.js';
import type { ApiDeps } from '../deps.js';
import {
  answer,
  channelBody,
  closeBody,
  fundBody,
  idempotencyHeaders,
  labErrors,
  labParams,
  mineBody,
  paymentBody,
  reorgBody,
  waitQuery,
} from '../schemas.js';

type JobAsked = { Params: { name: string }; Querystring: { wait: boolean }; Headers: { 'idempotency-key'?: string } };
export type Work<B> = JobAsked & { Body: B };
const jobAnswers = {
  200: answer('the finished job (with ?wait=true)'),
  202: answer('{ job, state, url }'),
  ...labErrors,
};
/**
 * The schema of a route that queues a job: the lab in the path, `?wait=true`, an Idempotency-Key, the job's answers.
 */
export const jobSchema = (summary: string, body: object) => ({
  summary,
  params: labParams,
  querystring: waitQuery,
  headers: idempotencyHeaders,
  body,
  response: jobAnswers,
});

/**
 * Queues the job (or finds the one its Idempotency-Key queued); answers 202 with where to follow it, or (`?wait=true`)
 * the finished job.
 */
export async function enqueueJob(
  jobs: JobQueues,
  job: JobRequest,
  asked: FastifyRequest<JobAsked>,
  reply: FastifyReply,
) {
  const id = await jobs.add(job, asked.headers['idempotency-key']);
  if (!asked.query.wait) {
    reply.status(202);
    return { job: id, state: 'waiting', url: `/jobs/${id}` };
  }
  return jobs.wait(id, 120_000);
}

export function workRoutes(app: FastifyInstance, { manager, jobs }: ApiDeps): void {
  const enqueue = (job: JobRequest, asked: FastifyRequest<JobAsked>, reply: FastifyReply) =>
    enqueueJob(jobs, job, asked, reply);
  /**
   * The services a job needs (the nodes it names; the chain node for what mines or sends on chain)
   * must exist and be ready, checked before anything is queued.
   */
  const ready = (lab: string, ...nodes: (string | undefined)[]) => {
    const session = manager.session(lab);
    for (const node of nodes) if (node !== undefined) requireReady(session, node);
  };
  const differ = (a: string, b: string | undefined, what: string) => {
    if (a === b) throw invalid('SAME_NODE', `${what} needs two different nodes`);
  };

  app.post<Work<{ blocks: number; address?: string }>>(
    '/labs/:name/mine',
    { schema: jobSchema('Mine blocks (to the lab wallet or an address)', mineBody) },
    async (request, reply) => {
      ready(request.params.name, CHAIN_SERVICE);
      if (request.body.address) assertRegtestAddress(request.body.address);
      return enqueue(
        {
          queue: 'mining',
          action: 'mine',
          lab: request.params.name,
          blocks: request.body.blocks,
          address: request.body.address,
        },
        request,
        reply,
      );
    },
  );

  app.post<Work<{ blocks: number }>>(
    '/labs/:name/reorg',
    { schema: jobSchema('Replace the last N blocks by N+1 new ones', reorgBody) },
    async (request, reply) => {
      ready(request.params.name, CHAIN_SERVICE);
      return enqueue(
        { queue: 'mining', action: 'reorg', lab: request.params.name, blocks: request.body.blocks },
        request,
        reply,
      );
    },
  );

  app.post<Work<{ node?: string; address?: string; amount_sat: number }>>(
    '/labs/:name/fund',
    { schema: jobSchema('Send coins from the lab wallet to a node or an address, and confirm them', fundBody) },
    async (request, reply) => {
      const { node, address, amount_sat } = request.body;
      ready(request.params.name, CHAIN_SERVICE, node);
      if (address) assertRegtestAddress(address);
      return enqueue(
        { queue: 'funding', lab: request.params.name, node, address, amountSat: String(amount_sat) },
        request,
        reply,
      );
    },
  );

  app.post<Work<{ from: string; to: string; capacity_sat: number; push_sat: number; private: boolean }>>(
    '/labs/:name/channels',
    { schema: jobSchema('Open a channel, confirm it and wait until it is active', channelBody) },
    async (request, reply) => {
      const { from, to, capacity_sat, push_sat } = request.body;
      differ(from, to, 'a channel');
      if (push_sat >= capacity_sat) throw invalid('PUSH_TOO_LARGE', 'push_sat must be less than capacity_sat');
      ready(request.params.name, CHAIN_SERVICE, from, to);
      return enqueue(
        {
          queue: 'channels',
          action: 'open',
          lab: request.params.name,
          from,
          to,
          capacitySat: capacity_sat,
          pushSat: push_sat,
          private: request.body.private,
        },
        request,
        reply,
      );
    },
  );

  app.post<Work<{ node: string; partner?: string; channel_id?: string; force: boolean }>>(
    '/labs/:name/channels/close',
    { schema: jobSchema('Close a channel (cooperatively, or force)', closeBody) },
    async (request, reply) => {
      const { node, partner, channel_id, force } = request.body;
      if (partner === undefined && channel_id === undefined)
        throw invalid('CHANNEL_MISSING', 'name the channel: partner (a node) or channel_id');
      differ(node, partner, 'a channel');
      ready(request.params.name, CHAIN_SERVICE, node);
      // a channel that is not there, or not one, is the request's fault, said before anything is queued
      // (unless this key queued the job already: the channel may be closed by now)
      const key = request.headers['idempotency-key'];
      if (key === undefined || !(await jobs.get(`channels-${key}`)))
        await channelToClose(manager.session(request.params.name), { node, partner, channelId: channel_id, force });
      return enqueue(
        { queue: 'channels', action: 'close', lab: request.params.name, node, partner, channelId: channel_id, force },
        request,
        reply,
      );
    },
  );

  app.post<Work<{ from: string; to?: string; amount_sat?: number; invoice?: string; keysend: boolean }>>(
    '/labs/:name/payments',
    {
      schema: jobSchema('Pay: an invoice of `to` paid by `from`, any BOLT11 invoice, or a keysend', paymentBody),
    },
    async (request, reply) => {
      const { from, to, amount_sat, invoice, keysend } = request.body;
      const lab = request.params.name;
      differ(from, to, 'a payment');
      ready(lab, from, to);
      if (invoice !== undefined)
        return enqueue({ queue: 'payments', action: 'pay', lab, from, invoice }, request, reply);
      const payee = { lab, from, to: to!, amountSat: amount_sat! };
      return enqueue(
        keysend
          ? { queue: 'payments', action: 'keysend', ...payee }
          : { queue: 'payments', action: 'invoice', ...payee },
        request,
        reply,
      );
    },
  );

  app.get<{ Params: { id: string } }>(
    '/jobs/:id',
    {
      schema: {
        summary: 'A job: its state, result or error',
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } },
        response: {
          200: answer('{ id, queue, lab, state, request, result?, error?, attempts, createdAt, finishedAt? }'),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const job = await jobs.get(request.params.id);
      if (!job) throw notFound(`no job "${request.params.id}"`, 'NO_SUCH_JOB');
      return job;
    },
  );
}
