// The rgb (or rln) node the faucet pays assets from, over RGB Lightning Node's API. RLN's refusals
// become the faucet's errors here.
import { invalid, unavailable, upstreamFailed } from '../../../lib/errors.js';
import { RlnError, type RlnAssetBalance, type RlnClient, type RlnInvoiceData } from '../../../lib/rln/client.js';
import { waitFor } from '../../../lib/wait.js';
import type { AssetClaimRequest } from './asset-invoice.js';

/** The bitcoin the faucet puts on the new output a witness invoice asks for (above the dust limit). */
const WITNESS_OUTPUT_SAT = 1_000;
/** sat/vB: the lab's mempools are empty, and rgb-lib's colored UTXOs must not go to fees. */
const FEE_RATE = 1;
/** What leaves the faucet's node short: of the asset, of bitcoin for the fee, of UTXOs to build the transfer on. */
const EMPTY = new Set(['InsufficientAssets', 'InsufficientFunds', 'NoAvailableUtxos']);

export class FaucetAssetNode {
  constructor(private readonly client: RlnClient) {}

  /** What an invoice asks for; 400 INVALID_INVOICE when it is not an RGB invoice. */
  async decodeInvoice(invoice: string): Promise<RlnInvoiceData> {
    try {
      return await this.client.decodeRgbInvoice(invoice);
    } catch (error) {
      if (error instanceof RlnError && error.status === 400)
        throw invalid(
          'INVALID_INVOICE',
          `not an RGB invoice the faucet can read (${error.reason}): paste the whole invoice, rgb:...`,
        );
      throw this.failed(error);
    }
  }

  async balance(assetId: string): Promise<RlnAssetBalance> {
    try {
      return await this.client.assetBalance(assetId);
    } catch (error) {
      throw this.failed(error);
    }
  }

  /**
   * Pays `amount` of the asset to the invoice's recipient as a donation: the node posts the
   * consignment to the invoice's proxy and broadcasts at once, without waiting for the payee's ACK
   * (the payee takes the consignment from the proxy on its next refresh). Returns the txid.
   */
  async donate(assetId: string, request: AssetClaimRequest): Promise<string> {
    const recipient = {
      recipient_id: request.recipientId,
      ...(request.witness ? { witness_data: { amount_sat: WITNESS_OUTPUT_SAT } } : {}),
      assignment: { type: 'Fungible' as const, value: request.amount },
      transport_endpoints: request.transportEndpoints,
    };
    try {
      return await this.client.sendRgb({
        donation: true,
        fee_rate: FEE_RATE,
        min_confirmations: 1,
        recipient_map: { [assetId]: [recipient] },
      });
    } catch (error) {
      if (error instanceof RlnError && error.rlnName && EMPTY.has(error.rlnName)) {
        throw unavailable(
          'FAUCET_EMPTY',
          `the asset faucet is empty: its node cannot pay this claim (${error.reason}). Send the asset, or bitcoin, to the faucet's node and try again`,
        );
      }
      if (error instanceof RlnError && proxyOutOfReach(error)) {
        throw upstreamFailed(
          'SEND_FAILED',
          `the faucet's node cannot reach the consignment proxy the invoice names (${request.transportEndpoints.join(', ')}): it is down, or out of the node's reach. Your invoice is not at fault: nothing was sent and your cool-down is released; claim again once the proxy answers (reglab status shows the lab's)`,
        );
      }
      if (error instanceof RlnError && error.status === 400)
        throw invalid('INVALID_INVOICE', `the faucet's node refused to pay this invoice: ${error.reason}`);
      throw upstreamFailed('SEND_FAILED', `the faucet could not send: ${reasonOf(error)}`);
    }
  }

  /**
   * Refreshes the node's transfers until its side of `txid` is Settled (the transaction confirmed, as its indexer sees
   * it).
   */
  async waitSettled(assetId: string, txid: string, timeoutMs: number): Promise<void> {
    await waitFor(
      async () => {
        await this.client.refreshTransfers();
        const sent = (await this.client.listTransfers(assetId)).find(
          (transfer) => transfer.kind === 'Send' && transfer.txid === txid,
        );
        if (sent?.status === 'Failed') throw new TransferFailed(txid);
        return sent?.status === 'Settled';
      },
      {
        timeoutMs,
        intervalMs: 200,
        what: `the faucet's node to see its transfer ${txid} settled`,
        stopOn: (error) => error instanceof TransferFailed,
      },
    );
  }

  private failed(error: unknown) {
    return upstreamFailed('DEPENDENCY_FAILED', `the faucet's RGB node ${this.client.url} failed: ${reasonOf(error)}`);
  }
}

/**
 * The node found no proxy among the invoice's transport endpoints that answers: a lab's rgb node says
 * so with 503 NoValidTransportEndpoint, RLN with 400 and rgb-lib's words.
 */
const proxyOutOfReach = (error: RlnError) =>
  error.rlnName === 'NoValidTransportEndpoint' || /no valid transport endpoints/i.test(error.reason);

class TransferFailed extends Error {
  constructor(txid: string) {
    super(`the faucet's node marked its transfer ${txid} failed`);
  }
}

const reasonOf = (error: unknown) =>
  error instanceof RlnError ? `${error.reason}${error.rlnName ? ` (${error.rlnName})` : ''}` : (error as Error).message;
