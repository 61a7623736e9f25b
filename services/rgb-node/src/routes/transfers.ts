// Moving assets on-chain: /rgbinvoice (blinded UTXO or witness), /decodergbinvoice, /sendrgb (HEAD)
// and /sendasset (OLD's, with its flat body), /refreshtransfers, /listtransfers, /failtransfers. Consignments
// travel through the proxy an invoice names; a transfer moves only when /refreshtransfers is called
// on both sides (as with RLN).
import type { FastifyInstance } from 'fastify';
import { decodeRgbInvoice } from '../../../../lib/rgb/invoice.js';
import type { Recipient } from '../../../../lib/rgb/types.js';
import { toLibAssignment, toRlnInvoiceData, toRlnTransfer, type RlnAssignment } from '../rln/convert.js';
import { invalidRequest } from '../rln/errors.js';
import { rlnSchema } from '../rln/http.js';
import { checkInvoiceAssignment, checkRecipients, type RlnRecipient } from '../rln/request-checks.js';
import {
  assetIdBody,
  decodeRgbInvoiceResponse,
  emptyResponse,
  failTransfersBody,
  invoiceBody,
  listTransfersResponse,
  rgbInvoiceBody,
  rgbInvoiceResponse,
  sendAssetBody,
  sendRgbBody,
  skipSyncBody,
  txidResponse,
} from '../rln/schemas.js';
import type { RgbNode, UnlockedNode } from '../node/rgb-node.js';

/** How long an invoice (or a send waiting for its ACK) stays open when the request does not say. */
const DEFAULT_EXPIRY_SECONDS = 24 * 60 * 60;

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface RgbInvoiceBody {
  asset_id?: string | null;
  assignment?: RlnAssignment | null;
  min_confirmations: number;
  witness: boolean;
  expiration_timestamp?: number | null;
  duration_seconds?: number | null;
  transport_endpoints?: string[] | null;
}

interface SendRgbBody {
  donation: boolean;
  fee_rate: number;
  min_confirmations: number;
  expiration_timestamp?: number | null;
  recipient_map: Record<string, RlnRecipient[]>;
}

/** OLD RLN's /sendasset: one blinded recipient, flat. */
interface SendAssetBody {
  asset_id: string;
  amount: number;
  recipient_id: string;
  donation: boolean;
  fee_rate: number;
  min_confirmations: number;
  transport_endpoints: string[];
}

/** The request's endpoints, else the proxy the node was given (OLD /unlock's proxy_endpoint or PROXY_ENDPOINT). */
function transportEndpoints(node: UnlockedNode, requested: string[] | null | undefined): string[] {
  if (requested && requested.length > 0) return requested;
  if (node.proxyEndpoint) return [node.proxyEndpoint];
  throw invalidRequest(
    'no transport endpoint: give transport_endpoints (e.g. ["rpc://127.0.0.1:3000/json-rpc"]) or start the node with PROXY_ENDPOINT',
  );
}

const toLibRecipient = (recipient: RlnRecipient): Recipient => ({
  recipientId: recipient.recipient_id,
  witnessData: recipient.witness_data
    ? { amountSat: recipient.witness_data.amount_sat, blinding: recipient.witness_data.blinding ?? null }
    : null,
  assignment: toLibAssignment(recipient.assignment),
  transportEndpoints: recipient.transport_endpoints,
});

export function transferRoutes(api: FastifyInstance, node: RgbNode): void {
  api.post<{ Body: RgbInvoiceBody }>(
    '/rgbinvoice',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary:
          'An RGB invoice to receive on a blinded UTXO (witness: false) or on a new output of the payer (witness: true); expires after 24 h unless expiration_timestamp or duration_seconds says',
        body: rgbInvoiceBody,
        ok: rgbInvoiceResponse,
      }),
    },
    async (request) => {
      const unlocked = node.unlocked();
      const body = request.body;
      const assignment = body.assignment ?? { type: 'Any' };
      checkInvoiceAssignment(assignment);
      const receive = {
        assetId: body.asset_id ?? undefined,
        assignment: toLibAssignment(assignment),
        expirationTimestamp:
          body.expiration_timestamp ?? nowSeconds() + (body.duration_seconds ?? DEFAULT_EXPIRY_SECONDS),
        transportEndpoints: transportEndpoints(unlocked, body.transport_endpoints),
        minConfirmations: body.min_confirmations,
      };
      const received = await (body.witness
        ? unlocked.wallet.witnessReceive(receive)
        : unlocked.wallet.blindReceive(receive));
      return {
        recipient_id: received.recipientId,
        invoice: received.invoice,
        expiration_timestamp: received.expirationTimestamp,
        batch_transfer_idx: received.batchTransferIdx,
      };
    },
  );

  api.post<{ Body: { invoice: string } }>(
    '/decodergbinvoice',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary: 'What an RGB invoice asks for',
        body: invoiceBody,
        ok: decodeRgbInvoiceResponse,
      }),
    },
    async (request) => {
      node.unlocked(); // refuses while not unlocked, as RLN does
      return toRlnInvoiceData(await decodeRgbInvoice(request.body.invoice));
    },
  );

  const send = async (recipientMap: Record<string, RlnRecipient[]>, body: Omit<SendRgbBody, 'recipient_map'>) => {
    const { wallet } = node.unlocked();
    checkRecipients(recipientMap);
    const { txid } = await wallet.send({
      recipientMap: Object.fromEntries(
        Object.entries(recipientMap).map(([assetId, recipients]) => [assetId, recipients.map(toLibRecipient)]),
      ),
      donation: body.donation,
      feeRateSatPerVb: body.fee_rate,
      minConfirmations: body.min_confirmations,
      expirationTimestamp: body.expiration_timestamp ?? nowSeconds() + DEFAULT_EXPIRY_SECONDS,
    });
    return { txid };
  };

  api.post<{ Body: SendRgbBody }>(
    '/sendrgb',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary:
          "Send assets on-chain to RGB recipients (a witness recipient needs witness_data.amount_sat); the consignments go to the recipients' proxies, the transaction out once they ACK",
        body: sendRgbBody,
        ok: txidResponse,
        statuses: [503],
      }),
    },
    (request) => send(request.body.recipient_map, request.body),
  );

  api.post<{ Body: SendAssetBody }>(
    '/sendasset',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary: "OLD RLN's send: one amount of one asset to one blinded recipient",
        body: sendAssetBody,
        ok: txidResponse,
        statuses: [503],
      }),
    },
    (request) => {
      const { asset_id, amount, recipient_id, transport_endpoints } = request.body;
      return send(
        { [asset_id]: [{ recipient_id, assignment: { type: 'Fungible', value: amount }, transport_endpoints }] },
        request.body,
      );
    },
  );

  api.post<{ Body: { skip_sync: boolean } }>(
    '/refreshtransfers',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary:
          'Move every pending transfer on: fetch, validate and ACK consignments, broadcast, follow confirmations',
        body: skipSyncBody,
        ok: emptyResponse,
        statuses: [503],
      }),
    },
    async (request) => {
      await node.unlocked().wallet.refresh({ skipSync: request.body.skip_sync });
      return {};
    },
  );

  api.post<{ Body: { asset_id: string } }>(
    '/listtransfers',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary: "An asset's transfers: issuance, sends and receives with their status",
        body: assetIdBody,
        ok: listTransfersResponse,
      }),
    },
    async (request) => ({
      transfers: (await node.unlocked().wallet.listTransfers(request.body.asset_id)).map(toRlnTransfer),
    }),
  );

  api.post<{ Body: { batch_transfer_idx?: number | null; no_asset_only: boolean; skip_sync: boolean } }>(
    '/failtransfers',
    {
      schema: rlnSchema({
        tag: 'transfers',
        method: 'POST',
        summary: 'Mark transfers still waiting for the counterparty as failed (one batch, or all expired ones)',
        body: failTransfersBody,
        ok: { type: 'object', required: ['transfers_changed'], properties: { transfers_changed: { type: 'boolean' } } },
        statuses: [503],
      }),
    },
    async (request) => {
      const { batch_transfer_idx, no_asset_only, skip_sync } = request.body;
      return {
        transfers_changed: await node.unlocked().wallet.failTransfers({
          batchTransferIdx: batch_transfer_idx ?? undefined,
          noAssetOnly: no_asset_only,
          skipSync: skip_sync,
        }),
      };
    },
  );
}
