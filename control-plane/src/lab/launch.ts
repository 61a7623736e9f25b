import { btcdLaunch } from '../kinds/btcd.js';
import { lndLaunch } from '../kinds/lnd.js';
import { rlnArgs } from '../kinds/rln-bringup.js';
import { postgresServiceLaunch } from '../kinds/postgres.js';
import { redisServiceLaunch } from '../kinds/redis.js';
import { chainAdapterLaunch, faucetLaunch, indexerLaunch, walletServerLaunch } from '../kinds/services.js';
import type { LaunchSpec, Placement } from '../kinds/types.js';
import { regtestKey } from '../wallet/keys.js';
import { CHAIN_SERVICE } from './plan.js';
import type { LabSession } from './session.js';
import type { ServiceState } from './state.js';

export interface LaunchContext {
  session: LabSession;
  placement: Placement;
  /** The control plane's URL as the lab's services reach it, when a control plane runs the lab. */
  controlPlaneUrl?: string;
}

/** The launch of one planned service, built from lab.yaml and the credentials gathered so far. */
export function launchFor(service: ServiceState, context: LaunchContext): LaunchSpec {
  const { session, placement } = context;
  const lab = session.lab;
  const connections = session.connections;
  const redisUrl = () => (lab.spec.redis.managed ? `redis://${placement.reach('redis', 'redis')}` : lab.spec.redis.url);
  switch (service.kind) {
    case 'btcd':
      return btcdLaunch(placement, {
        rpcUser: lab.secrets.chainRpcUser,
        rpcPassword: lab.secrets.chainRpcPassword,
        miningAddress: regtestKey(lab.secrets.labWalletKeyHex).address,
      });
    case 'lnd':
      return lndLaunch(placement, {
        alias: service.name,
        chainService: CHAIN_SERVICE,
        chainRpcUser: lab.secrets.chainRpcUser,
        chainRpcPassword: lab.secrets.chainRpcPassword,
        chainRpcCertPem: required(connections.chainCertPem, 'the chain node certificate'),
        tlsExtraDomains: [service.name],
      });
    case 'postgres':
      return postgresServiceLaunch(placement);
    case 'redis':
      return redisServiceLaunch(placement);
    case 'indexer':
      return indexerLaunch(placement, connections.chainRpc(placement));
    case 'chain-adapter':
      return chainAdapterLaunch(placement, connections.chainRpc(placement), placement.reach('indexer', 'electrum'));
    case 'faucet': {
      const settings = required(lab.spec.services.faucet, 'faucet settings');
      const adapter = lab.services['chain-adapter'];
      return faucetLaunch(placement, {
        chain: connections.chainRpc(placement),
        lnd: connections.lndCredentials(settings.node, placement),
        redisUrl: redisUrl(),
        claimSat: settings.claim_sat,
        cooldownSeconds: settings.cooldown_seconds,
        mineUrl: context.controlPlaneUrl ? `${context.controlPlaneUrl}/labs/${lab.name}/mine` : undefined,
        adapterPublicUrl: adapter ? `http://127.0.0.1:${adapter.hostPorts.http}` : undefined,
      });
    }
    case 'wallet-server': {
      const settings = required(lab.spec.services['wallet-server'], 'wallet-server settings');
      const nodeKind = lab.spec.nodes.find((node) => node.name === settings.node)?.kind;
      return walletServerLaunch(placement, {
        node: nodeKind === 'rln'
          ? { kind: 'rln', url: `http://${placement.reach(settings.node, 'api')}` }
          : { kind: 'lnd', credentials: connections.lndCredentials(settings.node, placement) },
        databaseUrl: lab.spec.postgres.managed ? `postgres://postgres@${placement.reach('postgres', 'sql')}/postgres` : lab.spec.postgres.url,
        redisUrl: redisUrl(),
        adminPubkeys: settings.admin_pubkeys,
        tokenSecret: lab.secrets.walletServerTokenSecret,
        publicUrl: `http://127.0.0.1:${service.hostPorts.http}`,
      });
    }
    case 'rln':
      return { program: { type: 'image', name: 'rln' }, args: rlnArgs(placement), env: {} };
    case 'bitcoind':
    case 'electrs':
      throw new Error(`${service.kind} runs only in the docker runtime, from an image built with \`reglab images build\``);
  }
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} missing while planning the lab`);
  return value;
}
