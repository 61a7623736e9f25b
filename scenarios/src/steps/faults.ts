// Breaking the lab on purpose, through the control plane's fault commands. Each fault is recorded
// so that a later step that fails for it can say so.
import type { AnyStepKind } from './kind.js';
import { node, object, service } from './schema-parts.js';

const SERVICE_ACTIONS = {
  stop: 'stop a service gracefully; the supervisor leaves it stopped',
  start: 'start a stopped service and wait until it is ready',
  restart: 'stop and start a service',
  kill: 'kill a service (SIGKILL, no clean shutdown); the supervisor restarts it by its restart policy',
} as const;

const serviceFaults = Object.entries(SERVICE_ACTIONS).map(
  ([action, summary]): AnyStepKind => ({
    name: action,
    summary,
    args: object({ service }, ['service']),
    async run(args: { service: string }, context) {
      const answer = await context.lab.post(`/services/${encodeURIComponent(args.service)}/${action}`);
      context.recordFault({ action, target: args.service });
      await context.services.fresh();
      return answer;
    },
  }),
);

const PEER_ACTIONS = {
  disconnect: 'disconnect two Lightning nodes (their channels go inactive)',
  connect: 'connect two Lightning nodes again',
} as const;

const peerFaults = Object.entries(PEER_ACTIONS).map(
  ([action, summary]): AnyStepKind => ({
    name: action,
    summary,
    args: object({ a: node, b: node }, ['a', 'b']),
    async run(args: { a: string; b: string }, context) {
      const answer = await context.lab.post(`/peers/${action}`, args);
      context.recordFault({ action, target: `${args.a}-${args.b}` });
      return answer;
    },
  }),
);

const serviceView: AnyStepKind = {
  name: 'service',
  summary:
    'a service as the supervisor sees it: status (ready, restarting, failed, stopped, ...), restarts, restartPolicy, error',
  args: object({ name: service }, ['name']),
  run: async (args: { name: string }, context) => context.services.service(args.name, await context.services.fresh()),
};

export const faultSteps = [...serviceFaults, ...peerFaults, serviceView];
