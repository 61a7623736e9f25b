// The lab's Redis (the wallet server's sessions, the faucet's cool-downs).
import { localImage } from '../../images/recipes.js';
import type { LaunchSpec, Placement } from '../../runtimes/types.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { pingRedis, redisArgs, saveRedis } from './server.js';

const url = (address: string) => `redis://${address}`;

/** The Redis lab services use, as `placement` reaches it: the lab's own, or lab.yaml's URL. */
export function labRedisUrl(access: LabAccess, placement: Placement): string {
  const spec = access.lab.spec.redis;
  return spec.managed ? url(placement.reach('redis', 'redis')) : spec.url;
}

/**
 * redis-server as `placement` runs it, keeping every write it answered: a Redis killed in a lab
 * comes back with the wallet server's sign-in sessions and the faucet's cool-downs (without them
 * every user would be signed out, and every cool-down lifted).
 */
export function redisServiceLaunch(placement: Placement): LaunchSpec {
  return {
    program: { type: 'system', name: 'redis-server' },
    args: redisArgs(placement.dataDir, placement.port('redis'), placement.listenHost, true),
    env: {},
  };
}

export const redis: KindDefinition = {
  ports: { redis: 6379 },
  image: localImage('redis', { entrypoint: ['/usr/bin/redis-server', '--protected-mode', 'no'], user: 'redis' }),
  dependsOn: () => [],
  launch: (access, service) => redisServiceLaunch(access.placementFor(service.name)),
  probe: (access, service) => pingRedis(url(access.host.reach(service.name, 'redis'))),
  flush: (access, service) => saveRedis(url(access.host.reach(service.name, 'redis'))),
  describe: async (access, service) => ({ url: url(access.host.reach(service.name, 'redis')) }),
  credentials: async (access, service) => ({ url: url(access.host.reach(service.name, 'redis')) }),
};
