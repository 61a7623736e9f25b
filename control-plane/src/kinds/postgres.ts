import { postgresLaunch } from '../managed/postgres.js';
import type { LaunchSpec, Placement } from './types.js';

export function postgresServiceLaunch(placement: Placement): LaunchSpec {
  const launch = postgresLaunch(`${placement.dataDir}/data`, placement.port('sql'));
  return {
    program: { type: 'system', name: 'postgres' },
    args: [...launch.args, '-c', `listen_addresses=${placement.listenHost}`],
    env: {},
    user: launch.user,
    stopSignal: launch.stopSignal,
  };
}
