import type { LaunchSpec, Placement } from '../../runtimes/types.js';

export interface BtcdSettings {
  rpcUser: string;
  rpcPassword: string;
  /** Where btcd's own miner (`generate`) pays: the lab wallet's address. */
  miningAddress: string;
}

export const BTCD_PORTS = ['rpc', 'p2p'] as const;

/** btcd on regtest as lnd's harness runs it, plus the address index the lab wallet needs. */
export function btcdLaunch(placement: Placement, settings: BtcdSettings): LaunchSpec {
  const dir = placement.dataDir;
  return {
    program: { type: 'node-binary', name: 'btcd' },
    args: [
      '--regtest',
      `--datadir=${dir}/data`,
      `--logdir=${dir}/logs`,
      `--rpcuser=${settings.rpcUser}`,
      `--rpcpass=${settings.rpcPassword}`,
      `--rpclisten=${placement.listenHost}:${placement.port('rpc')}`,
      `--listen=${placement.listenHost}:${placement.port('p2p')}`,
      `--rpccert=${dir}/rpc.cert`,
      `--rpckey=${dir}/rpc.key`,
      `--miningaddr=${settings.miningAddress}`,
      '--txindex',
      '--addrindex',
      '--nobanning',
      '--nostalldetect',
      '--nodnsseed',
      '--trickleinterval=50ms',
      '--rpcmaxclients=200',
      // each lnd holds three websocket connections (chain notifier, wallet, fee estimator): btcd's
      // default limit of 25 (and 50) refuses some nodes of a 20-node lab, which then reconnect forever
      '--rpcmaxwebsockets=1000',
      '--rpcmaxconcurrentreqs=100',
      '--debuglevel=info',
      // a lab's chain is small: btcd's default 250 MiB UTXO cache only grows its memory
      '--utxocachemaxsize=16',
    ],
    // a soft limit that keeps btcd's memory returned to the system, well above a lab btcd's live
    // heap: near the limit Go collects after every few MiB allocated, and btcd allocates for each
    // block and RPC, which cost it more CPU than the few MiB of RSS it saved (bench:memory)
    env: { GOMEMLIMIT: '96MiB' },
  };
}

/** The certificate btcd generates on first start, relative to its data folder. */
export const BTCD_RPC_CERT_FILE = 'rpc.cert';
