// Payment activity in the background of a scenario, through the control plane's activity routes:
// start it (random, flows), read its figures (failures by reason) while faults are injected, stop it.
import { activityRequestSchema } from '../../../control-plane/src/activity/request.js';
import type { AnyStepKind } from './kind.js';
import { object } from './schema-parts.js';

const start: AnyStepKind = {
  name: 'activity.start',
  summary:
    "start payment activity: random: { seed, expected_amount_sat, capacity_multiplier } (keysends weighted by channel capacity), flows: [{ from, to, amount_sat, interval_seconds, count, start_seconds }], max_in_flight, duration_seconds; {} runs lab.yaml's activity (else random); answers the status",
  args: activityRequestSchema,
  run: (args, context) => context.lab.post('/activity', args),
};

const status: AnyStepKind = {
  name: 'activity.status',
  summary:
    'the activity: running, attempted, succeeded, failed, pending, inFlight, paymentsPerSecond, failuresByReason (reason -> count), plan',
  args: object({}),
  run: (_args, context) => context.lab.get('/activity'),
};

const stop: AnyStepKind = {
  name: 'activity.stop',
  summary:
    'stop the activity (payments under way end and are recorded; nothing running is no error); answers the status',
  args: object({}),
  run: (_args, context) => context.lab.delete('/activity'),
};

export const activitySteps = [start, status, stop];
