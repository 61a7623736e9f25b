import { describe, expect, it } from 'vitest';
import { newLabState } from '../../control-plane/src/lab/bring-up.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { announcedAddress, reroutesOf, throughNetwork } from '../../control-plane/src/network/placement.js';
import { dockerPlacement } from '../../control-plane/src/runtimes/docker/placement.js';
import { processPlacement } from '../../control-plane/src/runtimes/process/placement.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

function lab(runtime: 'process' | 'docker', faults: boolean): LabState {
  const state = newLabState(
    parseLabSpec(`
name: net
runtime: ${runtime}
network: { faults: ${faults} }
nodes:
  - { name: alice, kind: lnd }
  - { name: bob, kind: ldk }
`),
    '',
    '/tmp/net',
  );
  let port = 40_000;
  for (const service of Object.values(state.services))
    for (const name of Object.keys(service.containerPorts)) service.hostPorts[name] = port++;
  return state;
}

const hostPort = (state: LabState, service: string, port: string) => state.services[service].hostPorts[port];

describe('a node of a lab with network faults', () => {
  it('reaches its peers and its chain backend at their proxies (process: the proxy port on loopback)', () => {
    const state = lab('process', true);
    const alice = throughNetwork(processPlacement(state, 'alice'), state, 'alice');
    expect(alice.reach('bob', 'p2p')).toBe(`127.0.0.1:${hostPort(state, 'toxiproxy', 'alice>bob:p2p')}`);
    expect(alice.reach('chain', 'rpc')).toBe(`127.0.0.1:${hostPort(state, 'toxiproxy', 'alice>chain:rpc')}`);
    // what is no link of alice's is reached as before
    expect(alice.reach('bob', 'api')).toBe(`127.0.0.1:${hostPort(state, 'bob', 'api')}`);
    expect(alice.port('p2p')).toBe(hostPort(state, 'alice', 'p2p'));
    expect(reroutesOf(state, 'alice')).toBeUndefined();
  });

  it('in a container keeps the name of the service it dials, which its hosts file gives the proxy', () => {
    const state = lab('docker', true);
    const alice = throughNetwork(dockerPlacement(state, 'alice'), state, 'alice');
    const proxyPort = state.services.toxiproxy.containerPorts['alice>chain:rpc'];
    expect(alice.reach('chain', 'rpc')).toBe(`chain:${proxyPort}`);
    expect(alice.reach('bob', 'p2p')).toBe(`bob:${state.services.toxiproxy.containerPorts['alice>bob:p2p']}`);
    expect(reroutesOf(state, 'alice')).toEqual({ chain: 'toxiproxy', bob: 'toxiproxy' });
    expect(reroutesOf(state, 'toxiproxy')).toBeUndefined();
  });

  it('announces, when an LDK node, an address where nothing listens; without faults, none is chosen here', () => {
    const processLab = lab('process', true);
    expect(announcedAddress(processLab, processPlacement(processLab, 'bob'), 'bob')).toBe(
      `127.0.0.1:${hostPort(processLab, 'toxiproxy', 'closed')}`,
    );
    const dockerLab = lab('docker', true);
    expect(announcedAddress(dockerLab, dockerPlacement(dockerLab, 'bob'), 'bob')).toBe(
      `bob:${dockerLab.services.toxiproxy.containerPorts.closed}`,
    );
    const plain = lab('process', false);
    expect(announcedAddress(plain, processPlacement(plain, 'bob'), 'bob')).toBeUndefined();
  });

  it('is placed as before in a lab without network faults', () => {
    const state = lab('process', false);
    const base = processPlacement(state, 'alice');
    expect(throughNetwork(base, state, 'alice')).toBe(base);
  });
});
