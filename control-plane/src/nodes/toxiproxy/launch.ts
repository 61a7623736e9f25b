import type { LaunchSpec, Placement } from '../../runtimes/types.js';

/** toxiproxy-server (scripts/build-toxiproxy.sh): its API on the service's `api` port; the proxies come through it. */
export function toxiproxyLaunch(placement: Placement): LaunchSpec {
  return {
    program: { type: 'node-binary', name: 'toxiproxy-server' },
    args: ['-host', placement.listenHost, '-port', String(placement.port('api'))],
    env: {},
  };
}
