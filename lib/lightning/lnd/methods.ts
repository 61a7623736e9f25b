// The ln-service functions the project calls, each loaded on its first call from its own file of
// ln-service's `lightning` package. `import { ... } from 'ln-service'` loads all ~150 of them and
// their dependencies, memory in each process that talks to lnd (the control plane, the wallet server,
// the faucet) though each calls a few (bench:memory).
import type * as LnService from 'ln-service';
import { lndMethodFile, type LndMethodName } from './files.js';
import { lightningRequire } from './package.js';

/** ln-service's `name`, same arguments and result (promise, callback or event emitter), loaded on first call. */
function method<Name extends LndMethodName>(name: Name): (typeof LnService)[Name] {
  let loaded: ((...args: unknown[]) => unknown) | undefined;
  return ((...args: unknown[]) =>
    (loaded ??= lightningRequire(lndMethodFile(name)) as (...args: unknown[]) => unknown)(
      ...args,
    )) as (typeof LnService)[Name];
}

export const addPeer = method('addPeer');
export const cancelHodlInvoice = method('cancelHodlInvoice');
export const closeChannel = method('closeChannel');
export const createChainAddress = method('createChainAddress');
export const createHodlInvoice = method('createHodlInvoice');
export const deleteForwardingReputations = method('deleteForwardingReputations');
export const getChannelBalance = method('getChannelBalance');
export const getChannels = method('getChannels');
export const getInvoice = method('getInvoice');
export const getNetworkGraph = method('getNetworkGraph');
export const getPayment = method('getPayment');
export const getPeers = method('getPeers');
export const getPendingChannels = method('getPendingChannels');
export const getWalletStatus = method('getWalletStatus');
export const openChannel = method('openChannel');
export const removePeer = method('removePeer');
export const sendToChainAddress = method('sendToChainAddress');
export const settleHodlInvoice = method('settleHodlInvoice');
export const subscribeToInvoices = method('subscribeToInvoices');
export const subscribeToPastPayment = method('subscribeToPastPayment');
export const subscribeToPayViaDetails = method('subscribeToPayViaDetails');
export const subscribeToPayViaRequest = method('subscribeToPayViaRequest');
