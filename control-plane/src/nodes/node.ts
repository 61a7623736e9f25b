// The lab's handle on a node of lab.yaml's nodes[]: every node kind has an on-chain wallet the
// lab funds; Lightning kinds add their client of lib/lightning, which funding, channels, payments and
// inspection go through. Amounts in sat are numbers (regtest amounts fit), in msat bigint.
import type { ChannelControl, LightningClient } from '../../../lib/lightning/client.js';
import type { ServiceKind } from './registry.js';

export interface LabNode {
  readonly name: string;
  readonly kind: ServiceKind;
  newAddress(): Promise<string>;
  onchainBalance(): Promise<{ confirmedSat: number; unconfirmedSat: number }>;
  /** Resolves once the node has followed the chain to `height`. */
  waitSynced(height: number, timeoutMs?: number): Promise<void>;
  /** Releases connections (the node keeps running). */
  close(): void;
}

/** A Lightning node's client as the lab drives it: lib/lightning's, with channel control. */
export type LabLightning = LightningClient & { readonly channels: ChannelControl };

/** A node of a Lightning kind: its on-chain wallet and channels, payments and inspection, through `lightning`. */
export interface LabLightningNode extends LabNode {
  readonly lightning: LabLightning;
}

export const isLightning = (node: LabNode): node is LabLightningNode =>
  (node as Partial<LabLightningNode>).lightning !== undefined;

const drivable = (client: LightningClient): client is LabLightning => client.channels !== undefined;

/** The lab's handle on a node of a Lightning kind, over its client; the lab needs its channel control. */
export function lightningNode(name: string, kind: ServiceKind, client: LightningClient): LabLightningNode {
  if (!drivable(client)) throw new Error(`the ${client.implementation} client of ${name} offers no channel control`);
  return {
    name,
    kind,
    lightning: client,
    newAddress: () => client.newAddress(),
    onchainBalance: () => client.onchainBalance(),
    waitSynced: (height, timeoutMs) => client.waitSynced(height, timeoutMs),
    close: () => client.close(),
  };
}

/** RGB asset schemas: NIA (fungible, with a ticker), CFA (fungible, no ticker), UDA (one unique token). */
export type AssetSchema = 'nia' | 'cfa' | 'uda';

export interface AssetBalance {
  settled: number;
  /** What the balance will be once pending transfers settle. */
  future: number;
  spendable: number;
}

/** An asset as its holder knows it; amounts in the asset's smallest unit. */
export interface HeldAsset {
  assetId: string;
  schema: AssetSchema;
  /** NIA and UDA carry a ticker; CFA has none. */
  ticker?: string;
  name: string;
  precision: number;
  issuedSupply: number;
  balance: AssetBalance;
}

export interface AssetIssue {
  schema: AssetSchema;
  ticker: string;
  name: string;
  precision: number;
  /** The whole supply, issued to the holder (a UDA is one token: 1). */
  amount: number;
}

export interface AssetTransferView {
  kind: 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation';
  status: 'WaitingCounterparty' | 'WaitingBroadcast' | 'WaitingConfirmations' | 'Settled' | 'Failed';
  txid?: string;
  recipientId?: string;
}

/** An amount of an asset for the holder of `invoice`; for a UDA the amount is 1 (the token). */
export interface AssetPayment {
  invoice: string;
  amount: number;
}

/** A node that holds RGB assets on-chain (rgb, rln): the lab issues, invoices, sends and refreshes through it. */
export interface AssetHolder extends LabNode {
  readonly holdsAssets: true;
  issueAsset(request: AssetIssue): Promise<HeldAsset>;
  /** Every asset the node knows, with its balance. */
  heldAssets(): Promise<HeldAsset[]>;
  /** An invoice for any asset: to a blinded UTXO of the node, or (`witness`) to a new output the payer makes. */
  assetInvoice(witness: boolean): Promise<{ invoice: string; recipientId: string }>;
  /** Pays the invoices in one transaction; the consignments go to each invoice's proxy. Returns the txid. */
  sendAsset(asset: { assetId: string; schema: AssetSchema }, payments: AssetPayment[]): Promise<string>;
  /** Moves the node's transfers on: fetch and ACK consignments, broadcast, follow confirmations. */
  refreshTransfers(): Promise<void>;
  /** The node's transfers of an asset (none when it does not know the asset yet). */
  assetTransfers(assetId: string): Promise<AssetTransferView[]>;
  /** New colored UTXOs from the node's bitcoin, for receiving and issuing (confirmed by the next block). */
  createColoredUtxos(): Promise<void>;
}

export const holdsAssets = (node: LabNode): node is AssetHolder => (node as Partial<AssetHolder>).holdsAssets === true;
