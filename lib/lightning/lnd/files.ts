// Which files of ln-service's `lightning` package the project loads, one by one (connection.ts, methods.ts)
// rather than through its index, which loads all: what scripts/bundle.mjs puts in one file.
import type * as LnService from 'ln-service';

/** The files of `lightning` (and of the packages it resolves) the clients are made with. */
export const LND_CLIENT_FILES = {
  services: './grpc/grpc_services.json',
  grpc: '@grpc/grpc-js',
  // the copies of proto-loader (ln-service's loader), which resolves them as lightning does
  protobuf: 'protobufjs',
  camelCase: 'lodash.camelcase',
  grpcOptions: './lnd_grpc/grpc_options',
  grpcCredentials: './lnd_grpc/grpc_credentials',
  grpcSsl: './lnd_grpc/grpc_ssl',
} as const;

/** The ln-service functions the project calls, each with the folder of lightning's lnd_methods/ that holds it. */
export const LND_METHOD_FOLDERS = {
  addPeer: 'peers',
  cancelHodlInvoice: 'invoices',
  closeChannel: 'onchain',
  createChainAddress: 'address',
  createHodlInvoice: 'invoices',
  deleteForwardingReputations: 'offchain',
  getChannelBalance: 'offchain',
  getChannels: 'offchain',
  getInvoice: 'invoices',
  getNetworkGraph: 'info',
  getPayment: 'offchain',
  getPeers: 'peers',
  getPendingChannels: 'offchain',
  getWalletStatus: 'unauthenticated',
  openChannel: 'onchain',
  removePeer: 'peers',
  sendToChainAddress: 'onchain',
  settleHodlInvoice: 'invoices',
  subscribeToInvoices: 'invoices',
  subscribeToPastPayment: 'offchain',
  subscribeToPayViaDetails: 'offchain',
  subscribeToPayViaRequest: 'offchain',
} as const satisfies { [Name in keyof typeof LnService]?: string };

export type LndMethodName = keyof typeof LND_METHOD_FOLDERS;

/** lightning keeps each method in lnd_methods/<folder>/<snake_case name>.js. */
export function lndMethodFile(name: LndMethodName): string {
  return `./lnd_methods/${LND_METHOD_FOLDERS[name]}/${name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}.js`;
}

/** Every file of `lightning` the project loads, as lightningRequire() (package.ts) is given it. */
export function lightningFiles(): string[] {
  return [
    ...Object.values(LND_CLIENT_FILES),
    ...(Object.keys(LND_METHOD_FOLDERS) as LndMethodName[]).map(lndMethodFile),
  ];
}
