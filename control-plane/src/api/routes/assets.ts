// RGB assets of a lab, on its rgb and rln nodes: issue (answered at once), send (a job on the
// assets queue: invoice, send, a block, settled on both sides), what each node holds.
import type { FastifyInstance } from 'fastify';
import { assetBalances, assetIdOf, checkAssetSend, issueAsset, labAssets } from '../../lab/assets.js';
import type { AssetSchema } from '../../nodes/node.js';
import { assetAmount, assetName, assetPrecision, assetSchemaName, assetTicker } from '../../spec/assets.js';
import type { ApiDeps } from '../deps.js';
import { answer, labErrors, labParams } from '../schemas.js';
import { enqueueJob, jobSchema, type Work } from './work.js';

const nodeName = { type: 'string', minLength: 1, maxLength: 64 } as const;

const issueBody = {
  type: 'object',
  additionalProperties: false,
  required: ['node', 'ticker', 'amount'],
  properties: {
    node: nodeName,
    ticker: assetTicker,
    amount: { ...assetAmount, description: 'the supply, in the smallest unit (a uda asset: 1)' },
    name: { ...assetName, description: `${assetName.description}; the ticker if left out` },
    precision: { ...assetPrecision, default: 0 },
    schema: { ...assetSchemaName, default: 'nia' },
  },
} as const;

const sendBody = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to', 'asset', 'amount'],
  properties: {
    from: nodeName,
    to: nodeName,
    asset: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: "the lab's ticker of the asset, or its asset id (rgb:...)",
    },
    amount: assetAmount,
    witness: {
      type: 'boolean',
      default: false,
      description: 'pay to a new output of the receiver (a witness invoice) instead of a blinded UTXO of its own',
    },
  },
} as const;

const balancesQuery = { type: 'object', additionalProperties: false, properties: { node: nodeName } } as const;

type Issue = { node: string; ticker: string; amount: number; name?: string; precision: number; schema: AssetSchema };
type Send = { from: string; to: string; asset: string; amount: number; witness: boolean };

export function assetRoutes(app: FastifyInstance, { manager, jobs }: ApiDeps): void {
  app.get<{ Params: { name: string } }>(
    '/labs/:name/assets',
    {
      schema: {
        summary: "The lab's assets, and any other its nodes hold, with each node's settled balance",
        params: labParams,
        response: {
          200: answer(
            '{ assets: [{ ticker, assetId, schema, name, precision, issuedSupply, holders: { node: amount } }] }',
          ),
          ...labErrors,
        },
      },
    },
    async (request) => ({ assets: await labAssets(manager.session(request.params.name)) }),
  );

  app.post<{ Params: { name: string }; Body: Issue }>(
    '/labs/:name/assets',
    {
      schema: {
        summary: 'Issue an asset on an rgb or rln node; the lab names it by its ticker from then on',
        params: labParams,
        body: issueBody,
        response: {
          201: answer('{ node, asset: { ticker, assetId, schema, name, precision, issuedSupply, balance } }'),
          ...labErrors,
        },
      },
    },
    async (request, reply) => {
      const lab = request.params.name;
      const session = manager.session(lab);
      const asset = await issueAsset(session, request.body, (height) =>
        manager.events.emit('event', { type: 'blocks', lab, height, mined: 1 }),
      );
      await manager.save();
      reply.status(201);
      return { node: request.body.node, asset };
    },
  );

  app.get<{ Params: { name: string }; Querystring: { node?: string } }>(
    '/labs/:name/assets/balances',
    {
      schema: {
        summary: 'What each asset node holds (or one node, with ?node=)',
        params: labParams,
        querystring: balancesQuery,
        response: {
          200: answer(
            '{ nodes: [{ node, status, assets?: [{ ticker, assetId, schema, name, precision, settled, future, spendable }] }] }',
          ),
          ...labErrors,
        },
      },
    },
    async (request) => ({ nodes: await assetBalances(manager.session(request.params.name), request.query.node) }),
  );

  app.post<Work<Send>>(
    '/labs/:name/assets/send',
    {
      schema: jobSchema(
        'Send an amount of an asset from one node to another: an invoice of `to` (blinded, or witness), paid by `from`, a block, settled on both sides',
        sendBody,
      ),
    },
    async (request, reply) => {
      const lab = request.params.name;
      const session = manager.session(lab);
      const { from, to, amount, witness } = request.body;
      const assetId = assetIdOf(session, request.body.asset);
      await checkAssetSend(session, { from, to, assetId, amount, witness });
      return enqueueJob(jobs, { queue: 'assets', lab, from, to, assetId, amount, witness }, request, reply);
    },
  );
}
