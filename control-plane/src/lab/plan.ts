import type { ServiceKind } from '../kinds/types.js';
import type { LabSpec } from '../spec/types.js';

export interface PlannedService {
  name: string;
  kind: ServiceKind;
  /** Named ports the service listens on. */
  ports: string[];
  dependsOn: string[];
}

export const CHAIN_SERVICE = 'chain';

const chainKindPorts: Record<'btcd' | 'bitcoind', string[]> = { btcd: ['rpc', 'p2p'], bitcoind: ['rpc', 'p2p'] };

/** The lab's services as a graph, in a start order that respects every dependency. */
export function planLab(spec: LabSpec): PlannedService[] {
  const services: PlannedService[] = [{ name: CHAIN_SERVICE, kind: spec.chain.kind, ports: chainKindPorts[spec.chain.kind], dependsOn: [] }];
  if (spec.indexer.enabled) {
    services.push({ name: 'indexer', kind: spec.chain.kind === 'btcd' ? 'indexer' : 'electrs', ports: ['electrum'], dependsOn: [CHAIN_SERVICE] });
  }
  const wallet = spec.services['wallet-server'];
  const faucet = spec.services.faucet;
  if (wallet && spec.postgres.managed) services.push({ name: 'postgres', kind: 'postgres', ports: ['sql'], dependsOn: [] });
  if ((wallet || faucet) && spec.redis.managed) services.push({ name: 'redis', kind: 'redis', ports: ['redis'], dependsOn: [] });
  for (const node of spec.nodes) {
    services.push({ name: node.name, kind: node.kind, ports: node.kind === 'lnd' ? ['grpc', 'rest', 'p2p'] : ['api', 'p2p'], dependsOn: [CHAIN_SERVICE, ...(spec.indexer.enabled && node.kind === 'rln' ? ['indexer'] : [])] });
  }
  const managed = (name: 'postgres' | 'redis') => (spec[name].managed ? [name] : []);
  if (wallet) services.push({ name: 'wallet-server', kind: 'wallet-server', ports: ['http'], dependsOn: [wallet.node, ...managed('postgres'), ...managed('redis')] });
  if (faucet) services.push({ name: 'faucet', kind: 'faucet', ports: ['http'], dependsOn: [faucet.node, CHAIN_SERVICE, ...managed('redis')] });
  if (spec.services['chain-adapter']) services.push({ name: 'chain-adapter', kind: 'chain-adapter', ports: ['http'], dependsOn: [CHAIN_SERVICE, 'indexer'] });
  return services;
}

/** Fixed host ports that lab.yaml asks for, by service and port name. */
export function requestedHostPorts(spec: LabSpec): Record<string, Record<string, number>> {
  const fixed: Record<string, Record<string, number>> = {};
  for (const service of ['wallet-server', 'faucet', 'chain-adapter'] as const) {
    const port = spec.services[service]?.port;
    if (port !== undefined) fixed[service] = { http: port };
  }
  return fixed;
}
