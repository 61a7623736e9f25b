// The lab's PostgreSQL (the wallet server's database).
import { localImage } from '../../images/recipes.js';
import type { Placement } from '../../runtimes/types.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { pingPostgres, POSTGRES_STOP_SIGNAL, postgresArgs, postgresUser } from './server.js';

const url = (address: string) => `postgres://postgres@${address}/postgres`;

/** The database lab services use, as `placement` reaches it: the lab's own, or lab.yaml's URL. */
export function labDatabaseUrl(access: LabAccess, placement: Placement): string {
  const spec = access.lab.spec.postgres;
  return spec.managed ? url(placement.reach('postgres', 'sql')) : spec.url;
}

export const postgres: KindDefinition = {
  ports: { sql: 5432 },
  image: localImage('postgres', {
    buildArgs: { POSTGRES_MAJOR: '15' },
    entrypoint: ['/usr/local/bin/reglab-postgres'],
    user: 'postgres',
  }),
  stopSignal: POSTGRES_STOP_SIGNAL,
  // killed, PostgreSQL leaves its System V shared-memory segment behind (its fast shutdown takes a few ms)
  cleanStopOnly: true,
  dependsOn: () => [],
  // the binary is the runtime's to find (this machine's, or the image's): the launch needs none here
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return {
      program: { type: 'system', name: 'postgres' },
      args: [
        ...postgresArgs(`${placement.dataDir}/data`, placement.port('sql')),
        '-c',
        `listen_addresses=${placement.listenHost}`,
      ],
      env: {},
      user: postgresUser(),
      stopSignal: POSTGRES_STOP_SIGNAL,
    };
  },
  probe: (access, service) => pingPostgres(url(access.host.reach(service.name, 'sql'))),
  describe: async (access, service) => ({ url: url(access.host.reach(service.name, 'sql')) }),
  credentials: async (access, service) => ({ url: url(access.host.reach(service.name, 'sql')) }),
};
