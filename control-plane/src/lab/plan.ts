import { labLinks, networkFaultsOn, networkPorts } from '../network/links.js';
import { NETWORK_SERVICE } from '../network/model.js';
import type { ServiceKind } from '../nodes/registry.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { kindDefinition } from '../nodes/registry.js';
import { RGB_PROXY_SERVICE } from '../nodes/rgb/index.js';
import type { LabSpec, RestartPolicy } from '../spec/types.js';

export interface PlannedService {
  name: string;
  kind: ServiceKind;
  /** Named ports the service listens on, each with its port inside a container. */
  containerPorts: Record<string, number>;
  dependsOn: string[];
  restartPolicy: RestartPolicy;
}

/** The lab's services as a graph, in a start order that respects every dependency. */
export function planLab(spec: LabSpec): PlannedService[] {
  const wanted: { name: string; kind: ServiceKind; restart?: RestartPolicy }[] = [
    { name: CHAIN_SERVICE, kind: 'btcd' },
  ];
  const services = spec.services;
  if (networkFaultsOn(spec)) wanted.push({ name: NETWORK_SERVICE, kind: 'toxiproxy' });
  if (spec.indexer.enabled) wanted.push({ name: 'indexer', kind: 'indexer' });
  if (services['wallet-server'] && spec.postgres.managed) wanted.push({ name: 'postgres', kind: 'postgres' });
  if ((services['wallet-server'] || services.faucet) && spec.redis.managed)
    wanted.push({ name: 'redis', kind: 'redis' });
  if (spec.nodes.some((node) => kindDefinition(node.kind).dependsOn(node.name, spec).includes(RGB_PROXY_SERVICE)))
    wanted.push({ name: RGB_PROXY_SERVICE, kind: 'rgb-proxy' });
  for (const node of spec.nodes) wanted.push({ name: node.name, kind: node.kind, restart: node.restart });
  if (services['wallet-server'])
    wanted.push({ name: 'wallet-server', kind: 'wallet-server', restart: services['wallet-server'].restart });
  if (services.faucet) wanted.push({ name: 'faucet', kind: 'faucet', restart: services.faucet.restart });
  if (services['chain-adapter'])
    wanted.push({ name: 'chain-adapter', kind: 'chain-adapter', restart: services['chain-adapter'].restart });
  const links = labLinks(spec);
  // a service whose links go through the network proxy starts once the proxy is there
  const linked = new Set(links.map((link) => link.from));
  return wanted.map(({ name, kind, restart }) => {
    const definition = kindDefinition(kind);
    return {
      name,
      kind,
      containerPorts: { ...definition.ports, ...(name === NETWORK_SERVICE ? networkPorts(links) : {}) },
      dependsOn: [...definition.dependsOn(name, spec), ...(linked.has(name) ? [NETWORK_SERVICE] : [])],
      restartPolicy: restart ?? spec.supervision.services[name] ?? spec.supervision.restart,
    };
  });
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
