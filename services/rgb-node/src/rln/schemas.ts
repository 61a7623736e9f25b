// JSON schemas of RLN's request and response bodies (RLN HEAD, ../shared/reference/
// rgb-lightning-node.md), for validation and the OpenAPI document. As in RLN (serde), a field RLN
// declares without Option is required. Unlike RLN, a field no RLN version has is refused (400
// naming it), so a misspelt optional field is not silently dropped; the fields of the RLN versions
// clients speak are all taken: /unlock HEAD's and OLD's, /rgbinvoice both expiration_timestamp and
// duration_seconds, /sendasset OLD's flat body. Amounts are whole numbers up to 2^53 - 1, the
// largest a JSON number carries exactly in JavaScript.

const amount = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const u8 = { type: 'integer', minimum: 0, maximum: 255 } as const;
const text = { type: 'string' } as const;
const nullable = <T extends { type: string }>(schema: T) => ({ ...schema, type: [schema.type, 'null'] });
const schemaName = { type: 'string', enum: ['Nia', 'Cfa', 'Uda', 'Ifa'] } as const;

const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) =>
  ({ type: 'object', required, properties, additionalProperties: false }) as const;

export const assignmentSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', enum: ['Fungible', 'NonFungible', 'InflationRight', 'Any'] }, value: amount },
  if: { type: 'object', properties: { type: { enum: ['Fungible', 'InflationRight'] } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
  then: { required: ['type', 'value'] },
} as const;

// ---- requests

export const initBody = object({ password: text, mnemonic: nullable(text) }, ['password']);
const ignored = (what: string) => ({ description: `${what}; this node has no LDK and ignores it` });
export const unlockBody = object(
  {
    password: text,
    indexer_url: nullable(text),
    proxy_endpoint: nullable({ ...text, description: 'OLD: the consignment proxy /rgbinvoice names by default' }),
    ldk_chain_sync: { type: 'object', ...ignored('HEAD: how LDK follows the chain') },
    bitcoind_rpc_username: { type: 'string', ...ignored('OLD: LDK follows bitcoind') },
    bitcoind_rpc_password: { type: 'string', ...ignored('OLD') },
    bitcoind_rpc_host: { type: 'string', ...ignored('OLD') },
    bitcoind_rpc_port: { type: 'integer', ...ignored('OLD') },
    announce_addresses: { type: 'array', items: text, ...ignored('Lightning announcements') },
    announce_alias: { type: ['string', 'null'], ...ignored('Lightning announcements') },
  },
  ['password'],
);
export const skipSyncBody = object({ skip_sync: { type: 'boolean' } });
export const createUtxosBody = object(
  {
    up_to: { type: 'boolean' },
    num: nullable(u8),
    size: nullable({ type: 'integer', minimum: 1, maximum: 4_294_967_295 }),
    fee_rate: amount,
    skip_sync: { type: 'boolean' },
  },
  ['up_to', 'fee_rate', 'skip_sync'],
);
export const sendBtcBody = object({ amount, address: text, fee_rate: amount, skip_sync: { type: 'boolean' } });
const amounts = { type: 'array', items: amount, description: 'one or more, each 1 or more' } as const;
export const issueNiaBody = object({ amounts, ticker: text, name: text, precision: u8 });
export const issueCfaBody = object(
  { amounts, name: text, details: nullable(text), precision: u8, file_digest: nullable(text) },
  ['amounts', 'name', 'precision'],
);
export const issueUdaBody = object(
  {
    ticker: text,
    name: text,
    details: nullable(text),
    precision: u8,
    media_file_digest: nullable(text),
    attachments_file_digests: { type: 'array', items: text },
  },
  ['ticker', 'name', 'precision', 'attachments_file_digests'],
);
export const listAssetsBody = object({ filter_asset_schemas: { type: 'array', items: schemaName } });
export const assetIdBody = object({ asset_id: text });
export const rgbInvoiceBody = object(
  {
    asset_id: nullable(text),
    assignment: { anyOf: [assignmentSchema, { type: 'null' }] },
    min_confirmations: u8,
    witness: { type: 'boolean' },
    expiration_timestamp: nullable(amount),
    duration_seconds: nullable({
      type: 'integer',
      minimum: 1,
      maximum: 4_294_967_295,
      description: 'older RLN versions: seconds from now',
    }),
    transport_endpoints: nullable({ type: 'array', items: text }),
  },
  ['min_confirmations', 'witness'],
);
export const invoiceBody = object({ invoice: text });
const recipient = object(
  {
    recipient_id: text,
    witness_data: {
      anyOf: [object({ amount_sat: amount, blinding: nullable(amount) }, ['amount_sat']), { type: 'null' }],
    },
    assignment: assignmentSchema,
    transport_endpoints: { type: 'array', items: text },
  },
  ['recipient_id', 'assignment', 'transport_endpoints'],
);
export const sendRgbBody = object(
  {
    donation: { type: 'boolean' },
    fee_rate: amount,
    min_confirmations: u8,
    expiration_timestamp: nullable(amount),
    skip_sync: { type: 'boolean' },
    recipient_map: {
      type: 'object',
      additionalProperties: { type: 'array', items: recipient },
      description: 'asset id -> recipients: one asset or more, each with one recipient or more',
    },
  },
  ['donation', 'fee_rate', 'min_confirmations', 'recipient_map'],
);
export const sendAssetBody = object(
  {
    asset_id: text,
    amount,
    recipient_id: text,
    donation: { type: 'boolean' },
    fee_rate: amount,
    min_confirmations: u8,
    transport_endpoints: { type: 'array', items: text },
    skip_sync: { type: 'boolean' },
  },
  ['asset_id', 'amount', 'recipient_id', 'donation', 'fee_rate', 'min_confirmations', 'transport_endpoints'],
);
export const failTransfersBody = object(
  {
    batch_transfer_idx: nullable({ type: 'integer', minimum: 0, maximum: 2_147_483_647 }),
    no_asset_only: { type: 'boolean' },
    skip_sync: { type: 'boolean' },
  },
  ['no_asset_only', 'skip_sync'],
);

// ---- responses

export const emptyResponse = { type: 'object', properties: {} } as const;
const btcBalance = object({ settled: amount, future: amount, spendable: amount });
export const btcBalanceResponse = object({ vanilla: btcBalance, colored: btcBalance });
export const assetBalanceResponse = object({
  settled: amount,
  future: amount,
  spendable: amount,
  offchain_outbound: amount,
  offchain_inbound: amount,
});
const media = nullable({ ...object({ file_path: text, digest: text, mime: text }) });
const assetCommon = {
  asset_id: text,
  name: text,
  details: nullable(text),
  precision: u8,
  timestamp: { type: 'integer' },
  added_at: { type: 'integer' },
  balance: assetBalanceResponse,
};
export const niaSchema = object({ ...assetCommon, ticker: text, issued_supply: amount, media });
export const cfaSchema = object({ ...assetCommon, issued_supply: amount, media });
const token = nullable({
  ...object({
    index: { type: 'integer' },
    ticker: nullable(text),
    name: nullable(text),
    details: nullable(text),
    embedded_media: { type: 'boolean' },
    media,
    attachments: { type: 'object', additionalProperties: media },
    reserves: { type: 'boolean' },
  }),
});
export const udaSchema = object({ ...assetCommon, ticker: text, token });
export const listAssetsResponse = object(
  {
    nia: nullable({ type: 'array', items: niaSchema }),
    uda: nullable({ type: 'array', items: udaSchema }),
    cfa: nullable({ type: 'array', items: cfaSchema }),
    ifa: nullable({ type: 'array', items: { type: 'object' } }),
  },
  [],
);
export const nodeInfoResponse = object({
  pubkey: text,
  num_channels: amount,
  num_usable_channels: amount,
  local_balance_sat: amount,
  eventual_close_fees_sat: amount,
  pending_outbound_payments_sat: amount,
  num_peers: amount,
  account_xpub_vanilla: text,
  account_xpub_colored: text,
  network_nodes: amount,
  network_channels: amount,
});
export const networkInfoResponse = object({ network: { type: 'string', enum: ['Regtest'] }, height: amount });
export const rgbInvoiceResponse = object({
  recipient_id: text,
  invoice: text,
  expiration_timestamp: nullable(amount),
  batch_transfer_idx: { type: 'integer' },
});
export const decodeRgbInvoiceResponse = object({
  recipient_id: text,
  recipient_type: { type: 'string', enum: ['Blind', 'Witness'] },
  asset_schema: nullable({ type: 'string', enum: ['Nia', 'Cfa', 'Uda'] }),
  asset_id: nullable(text),
  assignment: assignmentSchema,
  network: text,
  expiration_timestamp: nullable(amount),
  transport_endpoints: { type: 'array', items: text },
});
export const txidResponse = object({ txid: text });
const transfer = object({
  idx: { type: 'integer' },
  created_at: { type: 'integer' },
  updated_at: { type: 'integer' },
  status: {
    type: 'string',
    description:
      "rgb-lib's: WaitingCounterparty, WaitingBroadcast (a receiver that ACKed), WaitingConfirmations, Settled, Failed",
  },
  requested_assignment: { anyOf: [assignmentSchema, { type: 'null' }] },
  assignments: { type: 'array', items: assignmentSchema },
  kind: { type: 'string', enum: ['Issuance', 'ReceiveBlind', 'ReceiveWitness', 'Send', 'Inflation'] },
  txid: nullable(text),
  recipient_id: nullable(text),
  receive_utxo: nullable(text),
  change_utxo: nullable(text),
  expiration: nullable({ type: 'integer' }),
  transport_endpoints: {
    type: 'array',
    items: object({ endpoint: text, transport_type: text, used: { type: 'boolean' } }),
  },
});
export const listTransfersResponse = object({ transfers: { type: 'array', items: transfer } });
const unspent = object({
  utxo: object({ outpoint: text, btc_amount: amount, colorable: { type: 'boolean' } }),
  rgb_allocations: {
    type: 'array',
    items: object({ asset_id: nullable(text), assignment: assignmentSchema, settled: { type: 'boolean' } }),
  },
  pending_blinded: { type: 'integer', minimum: 0, description: 'blinded invoices waiting to be paid to this UTXO' },
});
export const listUnspentsResponse = object({ unspents: { type: 'array', items: unspent } });
