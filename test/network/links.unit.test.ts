import { describe, expect, it } from 'vitest';
import { newLabState } from '../../control-plane/src/lab/bring-up.js';
import { planLab } from '../../control-plane/src/lab/plan.js';
import { labLinks } from '../../control-plane/src/network/links.js';
import { NETWORK_SERVICE } from '../../control-plane/src/network/model.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

const mixed = (faults: boolean) =>
  parseLabSpec(`
name: mixed
indexer: { enabled: true }
network: { faults: ${faults} }
nodes:
  - { name: alice, kind: lnd }
  - { name: bob, kind: ldk }
  - { name: carol, kind: ldk, chain_source: esplora }
  - { name: dave, kind: rgb }
services:
  chain-adapter: {}
`);

describe('the links of a lab with network faults', () => {
  it('are every dial of its Lightning nodes: each peer both ways, and each node to its own chain backend', () => {
    const links = labLinks(mixed(true));
    expect(links.map((link) => link.name)).toEqual([
      'alice>bob:p2p',
      'alice>carol:p2p',
      'alice>chain:rpc',
      'bob>alice:p2p',
      'bob>carol:p2p',
      'bob>indexer:electrum',
      'carol>alice:p2p',
      'carol>bob:p2p',
      'carol>chain-adapter:http',
    ]);
    expect(links[0]).toEqual({ name: 'alice>bob:p2p', from: 'alice', to: 'bob', port: 'p2p' });
  });

  it('are none without network faults, and the lab plans no proxy', () => {
    const spec = mixed(false);
    expect(labLinks(spec)).toEqual([]);
    expect(planLab(spec).map((service) => service.name)).not.toContain(NETWORK_SERVICE);
    expect(newLabState(spec, '', '/tmp/x').network).toBeUndefined();
  });

  it('plan a proxy with a port per link, which every node with links waits for', () => {
    const spec = mixed(true);
    const planned = new Map(planLab(spec).map((service) => [service.name, service]));
    const proxy = planned.get(NETWORK_SERVICE)!;
    expect(proxy.kind).toBe('toxiproxy');
    expect(proxy.dependsOn).toEqual([]);
    expect(Object.keys(proxy.containerPorts).sort()).toEqual(
      ['api', 'closed', ...labLinks(spec).map((link) => link.name)].sort(),
    );
    expect(new Set(Object.values(proxy.containerPorts)).size).toBe(Object.keys(proxy.containerPorts).length);
    expect(planned.get('alice')!.dependsOn).toEqual(['chain', NETWORK_SERVICE]);
    expect(planned.get('carol')!.dependsOn).toEqual(['chain', 'chain-adapter', NETWORK_SERVICE]);
    // an rgb node opens no link of its own
    expect(planned.get('dave')!.dependsOn).not.toContain(NETWORK_SERVICE);
    const state = newLabState(spec, '', '/tmp/x');
    expect(state.network).toEqual({ links: labLinks(spec), faults: {} });
  });

  it('keep their ports from one bring-up to the next', () => {
    const ports = () => planLab(mixed(true)).find((service) => service.name === NETWORK_SERVICE)!.containerPorts;
    expect(ports()).toEqual(ports());
  });
});
