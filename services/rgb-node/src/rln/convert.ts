// rgb-lib's values (camelCase, from the binding) as RLN's API shows them (snake_case), and RLN's
// assignments (`{"type":"Fungible","value":N}`) as rgb-lib takes them (`{"Fungible":N}`).
import type {
  AssetCfa,
  AssetNia,
  AssetUda,
  Assignment,
  Balance,
  InvoiceData,
  Media,
  Outpoint,
  Transfer,
  Unspent,
} from '../../../../lib/rgb/types.js';

/** RLN's assignments that rgb-lib knows (it has no ReplaceRight). */
export type RlnAssignment =
  | { type: 'Fungible'; value: number }
  | { type: 'InflationRight'; value: number }
  | { type: 'NonFungible' }
  | { type: 'Any' };

export function toLibAssignment(assignment: RlnAssignment): Assignment {
  switch (assignment.type) {
    case 'Fungible':
      return { Fungible: assignment.value };
    case 'InflationRight':
      return { InflationRight: assignment.value };
    default:
      return assignment.type;
  }
}

export function toRlnAssignment(assignment: Assignment): RlnAssignment {
  if (typeof assignment === 'string') return { type: assignment };
  return 'Fungible' in assignment
    ? { type: 'Fungible', value: assignment.Fungible }
    : { type: 'InflationRight', value: assignment.InflationRight };
}

/** RLN adds the Lightning side of a balance; this node has none. */
export const toRlnBalance = (balance: Balance) => ({ ...balance, offchain_outbound: 0, offchain_inbound: 0 });

const toRlnMedia = (media: Media | null) =>
  media ? { file_path: media.filePath, digest: media.digest, mime: media.mime } : null;

const outpoint = (value: Outpoint | null) => (value ? `${value.txid}:${value.vout}` : null);

const common = (asset: AssetNia | AssetCfa | AssetUda) => ({
  asset_id: asset.assetId,
  name: asset.name,
  details: asset.details,
  precision: asset.precision,
  timestamp: asset.timestamp,
  added_at: asset.addedAt,
  balance: toRlnBalance(asset.balance),
});

export const toRlnNia = (asset: AssetNia) => ({
  ...common(asset),
  ticker: asset.ticker,
  issued_supply: asset.issuedSupply,
  media: toRlnMedia(asset.media),
});

export const toRlnCfa = (asset: AssetCfa) => ({
  ...common(asset),
  issued_supply: asset.issuedSupply,
  media: toRlnMedia(asset.media),
});

export function toRlnUda(asset: AssetUda) {
  const token = asset.token;
  return {
    ...common(asset),
    ticker: asset.ticker,
    token: token && {
      index: token.index,
      ticker: token.ticker,
      name: token.name,
      details: token.details,
      embedded_media: token.embeddedMedia,
      media: toRlnMedia(token.media),
      attachments: Object.fromEntries(
        Object.entries(token.attachments).map(([index, media]) => [index, toRlnMedia(media)]),
      ),
      reserves: token.reserves,
    },
  };
}

export const toRlnTransfer = (transfer: Transfer) => ({
  idx: transfer.idx,
  created_at: transfer.createdAt,
  updated_at: transfer.updatedAt,
  status: transfer.status,
  requested_assignment: transfer.requestedAssignment && toRlnAssignment(transfer.requestedAssignment),
  assignments: transfer.assignments.map(toRlnAssignment),
  kind: transfer.kind,
  txid: transfer.txid,
  recipient_id: transfer.recipientId,
  receive_utxo: outpoint(transfer.receiveUtxo),
  change_utxo: outpoint(transfer.changeUtxo),
  expiration: transfer.expirationTimestamp,
  transport_endpoints: transfer.transportEndpoints.map((endpoint) => ({
    endpoint: endpoint.endpoint,
    transport_type: endpoint.transportType,
    used: endpoint.used,
  })),
});

export const toRlnUnspent = (unspent: Unspent) => ({
  utxo: {
    outpoint: outpoint(unspent.utxo.outpoint),
    btc_amount: unspent.utxo.btcAmount,
    colorable: unspent.utxo.colorable,
  },
  rgb_allocations: unspent.rgbAllocations.map((allocation) => ({
    asset_id: allocation.assetId,
    assignment: toRlnAssignment(allocation.assignment),
    settled: allocation.settled,
  })),
  pending_blinded: unspent.pendingBlinded,
});

/** A blinded UTXO recipient reads `bcrt:utxob:...`, a witness one `bcrt:wvout:...`. */
const recipientType = (recipientId: string) => (/:wvout:/.test(recipientId) ? 'Witness' : 'Blind');

export const toRlnInvoiceData = (data: InvoiceData) => ({
  recipient_id: data.recipientId,
  recipient_type: recipientType(data.recipientId),
  asset_schema: data.assetSchema,
  asset_id: data.assetId,
  assignment: toRlnAssignment(data.assignment),
  network: data.network,
  expiration_timestamp: data.expirationTimestamp,
  transport_endpoints: data.transportEndpoints,
});
