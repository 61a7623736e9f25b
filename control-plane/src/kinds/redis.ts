import { redisArgs } from '../managed/redis.js';
import type { LaunchSpec, Placement } from './types.js';

export function redisServiceLaunch(placement: Placement): LaunchSpec {
  return {
    program: { type: 'system', name: 'redis-server' },
    args: redisArgs(placement.dataDir, placement.port('redis'), placement.listenHost),
    env: {},
  };
}
