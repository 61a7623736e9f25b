import type { LaunchSpec, Placement } from '../../runtimes/types.js';
import { DEFAULT_LND_CHAIN_CHECK_ATTEMPTS } from './settings.js';

export interface LndSettings {
  alias: string;
  chainService: string;
  chainRpcUser: string;
  chainRpcPassword: string;
  /** btcd's TLS certificate (PEM), passed inline so the same flags work in a container. */
  chainRpcCertPem: string;
  /** Extra host names for lnd's TLS certificate (a container's name). */
  tlsExtraDomains?: string[];
  /** Where lnd reads the lab's fee rates (lnd's fee-service format); without it lnd asks btcd. */
  feeUrl?: string;
  /** Failed chain health checks in a row after which lnd shuts itself down (0: never); the lab's default when absent. */
  chainCheckAttempts?: number;
}

/**
 * The confirmation target of sweeps without a deadline (a force close's own funds, anchors), far
 * beyond lnd's 1008: lnd starts such a sweep at the relay minimum only while its target is at least
 * 1008 blocks away, and otherwise at the fee estimate capped by the sweep's budget (half the
 * output), where an estimate at or above that cap leaves its fee function no room to rise ("fee rate
 * delta is zero") and the sweep is retried in vain every block. Two weeks keep every such sweep
 * starting at the relay minimum for its first thousand blocks, whatever the lab's fee rate, and any
 * fee confirms in a lab's next block.
 */
export const LND_NO_DEADLINE_CONF_TARGET = 2016;

/**
 * How often lnd reads its fee URL again: seconds, where lnd waits 5 to 20 minutes, so that a fee
 * spike (reglab fees spike) and its end reach lnd as they reach the lab's other parts.
 */
const FEE_URL_REFRESH = ['--fee.min-update-timeout=5s', '--fee.max-update-timeout=10s'];

export const LND_PORTS = ['grpc', 'rest', 'p2p'] as const;

/** Files lnd writes in its folder that clients need, relative to its data folder. */
export const LND_TLS_CERT_FILE = 'tls.cert';
export const LND_ADMIN_MACAROON_FILE = 'data/chain/bitcoin/regtest/admin.macaroon';

/**
 * lnd on regtest over btcd, with the settings of lnd's own test harness that make a lab quick:
 * no seed backup (the wallet is created and unlocked at start), one confirmation for channels,
 * keysend and AMP accepted, and gossip that converges at once: announcements released every
 * 50 ms, relayed without the 5 s pause lnd takes between a node's own and others' announcements
 * (with it a line of nodes learns its channels one pause per hop: bench:lab-up -- --nodes N), and
 * DescribeGraph answered fresh instead of from a cache kept for a minute. lnd shuts itself down once its
 * chain node has not answered its health check `chainCheckAttempts` times in a row: checked at lnd's
 * shortest interval (a minute), each try given 10 s, and 10 s between tries, it gives up within a
 * minute and a half with the lab's default two tries, rather than the six minutes it takes by default,
 * half useless meanwhile: the supervisor starts it again as soon as the chain node is back. Fees: the lab's
 * (`feeUrl`), and sweeps that always fit their budget (LND_NO_DEADLINE_CONF_TARGET).
 */
export function lndLaunch(placement: Placement, settings: LndSettings): LaunchSpec {
  const host = placement.listenHost;
  return {
    program: { type: 'node-binary', name: 'lnd' },
    args: [
      `--lnddir=${placement.dataDir}`,
      `--alias=${settings.alias}`,
      '--noseedbackup',
      '--nobootstrap',
      '--bitcoin.regtest',
      '--bitcoin.node=btcd',
      `--btcd.rpchost=${placement.reach(settings.chainService, 'rpc')}`,
      `--btcd.rpcuser=${settings.chainRpcUser}`,
      `--btcd.rpcpass=${settings.chainRpcPassword}`,
      `--btcd.rawrpccert=${Buffer.from(settings.chainRpcCertPem).toString('hex')}`,
      `--rpclisten=${host}:${placement.port('grpc')}`,
      `--restlisten=${host}:${placement.port('rest')}`,
      `--listen=${host}:${placement.port('p2p')}`,
      '--tlsextradomain=localhost',
      ...(settings.tlsExtraDomains ?? []).map((domain) => `--tlsextradomain=${domain}`),
      '--tlsextraip=127.0.0.1',
      ...(settings.feeUrl ? [`--fee.url=${settings.feeUrl}`, ...FEE_URL_REFRESH] : []),
      `--sweeper.nodeadlineconftarget=${LND_NO_DEADLINE_CONF_TARGET}`,
      '--bitcoin.defaultchanconfs=1',
      '--trickledelay=50',
      '--gossip.sub-batch-delay=5ms',
      '--caches.rpc-graph-cache-duration=0',
      '--accept-keysend',
      '--accept-amp',
      '--maxpendingchannels=20',
      '--protocol.wumbo-channels',
      '--healthcheck.chainbackend.interval=1m',
      `--healthcheck.chainbackend.attempts=${settings.chainCheckAttempts ?? DEFAULT_LND_CHAIN_CHECK_ATTEMPTS}`,
      '--healthcheck.chainbackend.timeout=10s',
      '--healthcheck.chainbackend.backoff=10s',
      '--debuglevel=info',
    ],
    // a heap 1.5x its live data rather than 2x: less memory per node for a little more GC work
    // (bench:memory); a soft memory limit instead made lnd collect all the time and slowed bring-up
    env: { GOGC: '50' },
  };
}
