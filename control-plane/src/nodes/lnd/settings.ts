// An lnd node's own setting in lab.yaml, chain_check_attempts: how soon lnd gives up on a chain node
// that does not answer.

/**
 * lnd shuts itself down once its chain node has failed this many health checks in a row: two, about
 * a minute and a half, rather than lnd's own three at longer intervals (lndLaunch).
 */
export const DEFAULT_LND_CHAIN_CHECK_ATTEMPTS = 2;

export interface LndNodeSettings {
  chain_check_attempts: number;
}

export const LND_NODE_SETTINGS = {
  chain_check_attempts: {
    type: 'integer',
    minimum: 0,
    maximum: 100,
    description: 'lnd nodes: failed chain health checks in a row after which lnd shuts itself down; 0: never',
  },
};
