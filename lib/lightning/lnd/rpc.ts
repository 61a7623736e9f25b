// lnd's RPCs called directly through ln-service's gRPC clients, where ln-service's function for
// them does more work in lnd than the caller needs, or there is none.
import type { AuthenticatedLnd } from 'ln-service';

/** ln-service's names of lnd's services; its typings leave out ChainKit (`blocks`), which its clients have. */
type LndService = keyof AuthenticatedLnd | 'blocks';

/**
 * `service`.`method`(`request`) on lnd, its answer as lnd gives it. A failure is shaped as
 * ln-service shapes its own ([503, `failure`, {err}]), so callers map both kinds alike.
 */
export function lndRpc<Response>(
  lnd: AuthenticatedLnd,
  service: LndService,
  method: string,
  request: object,
  failure: string,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    (lnd as Record<LndService, AuthenticatedLnd['default']>)[service][method](request, (err: unknown, res: Response) =>
      err ? reject([503, failure, { err }]) : resolve(res),
    );
  });
}

/**
 * The on-chain balance of lnd's default account: the wallet lnd funds channels from and sweeps to,
 * in each of its address types. ln-service's getChainBalance and getPendingChainBalance each ask
 * lnd for every account instead: lnd then lists the accounts of all its key scopes, its own key
 * families included, deriving their keys: on the first call after a start that is a burst of
 * secp256k1 work on the path of every bring-up (bench:snapshot). Accounts imported with
 * ImportAccount (watch-only) are not counted.
 */
export async function getDefaultAccountBalance(
  lnd: AuthenticatedLnd,
): Promise<{ confirmedSat: number; unconfirmedSat: number }> {
  const balance = await lndRpc<{ confirmed_balance: string; unconfirmed_balance: string }>(
    lnd,
    'default',
    'walletBalance',
    { account: 'default' },
    'UnexpectedErrorWhenGettingChainBalance',
  );
  return { confirmedSat: Number(balance.confirmed_balance), unconfirmedSat: Number(balance.unconfirmed_balance) };
}

/** lnd's GetInfo as lnd answers it: ln-service's getWalletInfo leaves out the count of inactive channels. */
export interface LndInfo {
  identity_pubkey: string;
  alias: string;
  synced_to_chain: boolean;
  block_height: number;
  num_peers: number;
  num_active_channels: number;
  num_inactive_channels: number;
  num_pending_channels: number;
}

export const getInfo = (lnd: AuthenticatedLnd): Promise<LndInfo> =>
  lndRpc<LndInfo>(lnd, 'default', 'getInfo', {}, 'UnexpectedGetWalletInfoError');

/**
 * The best block of lnd's chain node, asked over lnd's own connection to it (ChainKit). While that
 * connection is down lnd holds the request until it is made again, so an answer says lnd reaches
 * its chain node now; GetInfo goes on answering from what lnd last heard.
 */
export const getBestBlock = (lnd: AuthenticatedLnd): Promise<{ block_height: number }> =>
  lndRpc<{ block_height: number }>(lnd, 'blocks', 'getBestBlock', {}, 'UnexpectedErrorGettingBestBlock');
