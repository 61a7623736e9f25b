// A Lightning node of a lab, driven directly: its live view, addresses and invoices (hold
// invoices included). Payments and channels are jobs (work.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { invalid, notFound } from '../../../../lib/errors.js';
import { inspectNode } from '../../lab/inspect.js';
import { requireReady } from '../../lab/operations.js';
import type { ApiDeps } from '../deps.js';
import { answer, invoiceBody, invoiceParams, labErrors, nodeParams, settleBody } from '../schemas.js';

type Node = { Params: { name: string; node: string } };
type Invoice = { Params: { name: string; node: string; hash: string } };

export function nodeRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  const lightning = (lab: string, node: string) => {
    const session = manager.session(lab);
    requireReady(session, node);
    return session.lightning(node);
  };
  /** The node's hold invoices, or an error saying it has none. */
  const holdInvoices = (lab: string, node: string) => {
    const client = lightning(lab, node);
    if (!client.holdInvoices)
      throw invalid('HOLD_INVOICES_UNSUPPORTED', `${node} (${client.implementation}) has no hold invoices`);
    return client.holdInvoices;
  };

  app.get<Node>(
    '/labs/:name/nodes/:node',
    {
      schema: {
        summary: 'A node: pubkey, balances, channels, pending closes',
        params: nodeParams,
        response: { 200: answer('the node as `reglab status` shows it'), ...labErrors },
      },
    },
    async (request) => {
      const session = manager.session(request.params.name);
      session.node(request.params.node);
      const names = new Map(
        session.lab.spec.nodes.map((node) => [session.lab.services[node.name]?.info.pubkey, node.name]),
      );
      return inspectNode(session, request.params.node, names);
    },
  );

  app.post<Node>(
    '/labs/:name/nodes/:node/address',
    {
      schema: {
        summary: 'A new on-chain address of the node',
        params: nodeParams,
        response: { 200: answer('{ address }'), ...labErrors },
      },
    },
    async (request) => {
      const session = manager.session(request.params.name);
      requireReady(session, request.params.node);
      return { address: await session.node(request.params.node).newAddress() };
    },
  );

  app.post<Node & { Body: { amount_msat: number; memo?: string; expiry_sec?: number; hold: boolean } }>(
    '/labs/:name/nodes/:node/invoices',
    {
      schema: {
        summary: 'A BOLT11 invoice of the node (hold: the lab keeps the preimage and answers it)',
        params: nodeParams,
        body: invoiceBody,
        response: { 200: answer('{ payment_request, payment_hash, preimage? }'), ...labErrors },
      },
    },
    async (request) => {
      const { name, node } = request.params;
      const invoice = {
        amountMsat: BigInt(request.body.amount_msat),
        description: request.body.memo,
        expirySec: request.body.expiry_sec,
      };
      const preimage = request.body.hold ? randomBytes(32).toString('hex') : undefined;
      const created = preimage
        ? await holdInvoices(name, node).create({
            ...invoice,
            paymentHash: createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex'),
          })
        : await lightning(name, node).createInvoice(invoice);
      return {
        payment_request: created.bolt11,
        payment_hash: created.paymentHash,
        ...(preimage ? { preimage } : {}),
      };
    },
  );

  app.get<Invoice>(
    '/labs/:name/nodes/:node/invoices/:hash',
    {
      schema: {
        summary: 'An invoice of the node: open, accepted (held), settled or canceled',
        params: invoiceParams,
        response: { 200: answer('{ payment_hash, state, amount_msat, received_msat }'), ...labErrors },
      },
    },
    async (request) => {
      const { node, hash } = request.params;
      const invoice = await lightning(request.params.name, node).invoice(hash);
      if (!invoice) throw notFound(`${node} has no invoice with payment hash ${hash}`, 'NO_SUCH_INVOICE');
      return {
        payment_hash: invoice.paymentHash,
        state: invoice.state,
        amount_msat: invoice.amountMsat.toString(),
        received_msat: invoice.receivedMsat.toString(),
      };
    },
  );

  app.post<Invoice & { Body: { preimage: string } }>(
    '/labs/:name/nodes/:node/invoices/:hash/settle',
    {
      schema: {
        summary: 'Settle a held invoice with its preimage',
        params: invoiceParams,
        body: settleBody,
        response: { 200: answer('{ payment_hash, state }'), ...labErrors },
      },
    },
    async (request) => {
      if (
        createHash('sha256').update(Buffer.from(request.body.preimage, 'hex')).digest('hex') !== request.params.hash
      ) {
        throw invalid('PREIMAGE_MISMATCH', `the sha256 of this preimage is not ${request.params.hash}`);
      }
      await holdInvoices(request.params.name, request.params.node).settle(request.body.preimage);
      return { payment_hash: request.params.hash, state: 'settled' };
    },
  );

  app.post<Invoice>(
    '/labs/:name/nodes/:node/invoices/:hash/cancel',
    {
      schema: {
        summary: 'Cancel an open or held invoice',
        params: invoiceParams,
        response: { 200: answer('{ payment_hash, state }'), ...labErrors },
      },
    },
    async (request) => {
      const client = lightning(request.params.name, request.params.node);
      if (!client.cancelInvoice)
        throw invalid(
          'INVOICE_CANCEL_UNSUPPORTED',
          `${request.params.node} (${client.implementation}) cannot cancel invoices`,
        );
      await client.cancelInvoice(request.params.hash);
      return { payment_hash: request.params.hash, state: 'canceled' };
    },
  );
}
