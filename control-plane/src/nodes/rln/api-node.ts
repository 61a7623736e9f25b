// The lab's face of a node serving RLN's API (RLN itself, or an rgb node): its on-chain wallet and
// its RGB assets. RLN's refusals become the lab's errors here, so lab code never reads RLN's shapes.
import { conflict, invalid, upstreamFailed } from '../../../../lib/errors.js';
import { RlnError, type RlnAssignment, type RlnClient, type RlnHeldAsset } from '../../../../lib/rln/client.js';
import { waitFor } from '../../../../lib/wait.js';
import type { AssetHolder, AssetIssue, AssetPayment, AssetSchema, AssetTransferView, HeldAsset } from '../node.js';

/** The bitcoin a payer puts on the new output of a witness invoice (above the dust limit). */
const WITNESS_OUTPUT_SAT = 1_000;
/** sat/vB: the lab's mempools are empty, and rgb-lib's 1000-sat colored UTXOs must not go to fees. */
const FEE_RATE = 1;
const COLORED_UTXOS_PER_REQUEST = 5;

const toHeldAsset = (schema: AssetSchema, asset: RlnHeldAsset): HeldAsset => ({
  assetId: asset.asset_id,
  schema,
  ...(asset.ticker ? { ticker: asset.ticker } : {}),
  name: asset.name,
  precision: asset.precision,
  issuedSupply: asset.issued_supply ?? 1,
  balance: { settled: asset.balance.settled, future: asset.balance.future, spendable: asset.balance.spendable },
});

const assignmentOf = (schema: AssetSchema, amount: number): RlnAssignment =>
  schema === 'uda' ? { type: 'NonFungible' } : { type: 'Fungible', value: amount };

export class RlnApiNode implements AssetHolder {
  readonly holdsAssets = true;

  constructor(
    readonly name: string,
    readonly kind: 'rln' | 'rgb',
    private readonly client: RlnClient,
  ) {}

  newAddress(): Promise<string> {
    return this.client.address();
  }

  async onchainBalance() {
    const { vanilla } = await this.client.btcBalance();
    return { confirmedSat: vanilla.settled, unconfirmedSat: vanilla.future - vanilla.settled };
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => (await this.client.networkInfo()).height >= height, {
      timeoutMs,
      what: `rln node ${this.name} to reach height ${height}`,
    });
  }

  close(): void {
    // plain HTTP calls: nothing to release
  }

  issueAsset(request: AssetIssue): Promise<HeldAsset> {
    const { ticker, name, precision, amount } = request;
    return this.refusals(async () => {
      switch (request.schema) {
        case 'nia':
          return toHeldAsset('nia', await this.client.issueAssetNia({ amounts: [amount], ticker, name, precision }));
        case 'cfa':
          return toHeldAsset('cfa', await this.client.issueAssetCfa({ amounts: [amount], name, precision }));
        case 'uda':
          return toHeldAsset('uda', await this.client.issueAssetUda({ ticker, name, precision }));
      }
    });
  }

  heldAssets(): Promise<HeldAsset[]> {
    return this.refusals(async () => {
      const lists = await this.client.listAssets();
      return (['nia', 'cfa', 'uda'] as const).flatMap((schema) =>
        (lists[schema] ?? []).map((asset) => toHeldAsset(schema, asset)),
      );
    });
  }

  assetInvoice(witness: boolean): Promise<{ invoice: string; recipientId: string }> {
    return this.refusals(async () => {
      // no asset named: a wallet may name only assets it knows, and a first receipt is of one it does not
      const made = await this.client.rgbInvoice({ min_confirmations: 1, witness });
      return { invoice: made.invoice, recipientId: made.recipient_id };
    });
  }

  sendAsset(asset: { assetId: string; schema: AssetSchema }, payments: AssetPayment[]): Promise<string> {
    return this.refusals(async () => {
      const recipients = await Promise.all(
        payments.map(async (payment) => {
          const invoice = await this.client.decodeRgbInvoice(payment.invoice);
          return {
            recipient_id: invoice.recipient_id,
            ...(invoice.recipient_type === 'Witness' ? { witness_data: { amount_sat: WITNESS_OUTPUT_SAT } } : {}),
            assignment: assignmentOf(asset.schema, payment.amount),
            transport_endpoints: invoice.transport_endpoints,
          };
        }),
      );
      return this.client.sendRgb({
        donation: false,
        fee_rate: FEE_RATE,
        min_confirmations: 1,
        recipient_map: { [asset.assetId]: recipients },
      });
    });
  }

  refreshTransfers(): Promise<void> {
    return this.refusals(() => this.client.refreshTransfers());
  }

  assetTransfers(assetId: string): Promise<AssetTransferView[]> {
    return this.refusals(async () => {
      try {
        const transfers = await this.client.listTransfers(assetId);
        return transfers.map((transfer) => ({
          kind: transfer.kind,
          status: transfer.status,
          txid: transfer.txid ?? undefined,
          recipientId: transfer.recipient_id ?? undefined,
        }));
      } catch (error) {
        if (error instanceof RlnError && error.rlnName === 'UnknownContractId') return [];
        throw error;
      }
    });
  }

  async createColoredUtxos(): Promise<void> {
    await this.refusals(() =>
      this.client.createUtxos({ up_to: false, num: COLORED_UTXOS_PER_REQUEST, fee_rate: FEE_RATE, skip_sync: false }),
    );
  }

  /**
   * RLN's refusals as the lab's errors: bad input 400, the node's state 409 (no free colored UTXO among them), the rest
   * 502.
   */
  private async refusals<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof RlnError)) throw error;
      const said = `${this.name} refused: ${error.reason}${error.rlnName ? ` (${error.rlnName})` : ''}`;
      if (error.rlnName === 'NoAvailableUtxos')
        throw conflict('NO_FREE_UTXOS', `${said}; the lab makes new colored UTXOs when it needs them`);
      if (error.status === 400) throw invalid('NODE_REFUSED', said);
      if (error.status === 403) throw conflict('NODE_REFUSED', said);
      throw upstreamFailed('NODE_ERROR', `${this.name} failed: ${error.reason}`, error);
    }
  }
}
