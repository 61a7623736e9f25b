// What an activity runs, from a request: every default chosen (the seed too), and the lab's
// Lightning nodes named where the request names nodes.
import { randomInt } from 'node:crypto';
import type { YamlPath } from '../../../lib/yaml-problems.js';
import { isLightningKind } from '../nodes/registry.js';
import type { LabSpec } from '../spec/types.js';
import type { RandomSettings } from './random-activity.js';
import {
  DEFAULT_CAPACITY_MULTIPLIER,
  DEFAULT_EXPECTED_AMOUNT_SAT,
  DEFAULT_MAX_IN_FLIGHT,
  type ActivityRequest,
  type FlowSpec,
} from './request.js';

/** An activity ready to run: every default chosen, the seed too. */
export interface ActivityPlan {
  random?: RandomSettings;
  flows: FlowSpec[];
  maxInFlight: number;
  durationSeconds?: number;
}

export interface PlanProblem {
  /** Under the request (flows.0.to). */
  path: YamlPath;
  message: string;
}

/** What a schema cannot say: the flows name two different Lightning nodes of the lab. */
export function planProblems(request: ActivityRequest, nodes: LabSpec['nodes']): PlanProblem[] {
  const kinds = new Map(nodes.map((node) => [node.name, node.kind]));
  const lightning = nodes.filter((node) => isLightningKind(node.kind)).map((node) => node.name);
  const problems: PlanProblem[] = [];
  (request.flows ?? []).forEach((flow, index) => {
    for (const end of ['from', 'to'] as const) {
      const kind = kinds.get(flow[end]);
      if (kind === undefined || !isLightningKind(kind))
        problems.push({
          path: ['flows', index, end],
          message: `${kind === undefined ? `no node named "${flow[end]}"` : `"${flow[end]}" is an ${kind} node, not a Lightning node`} (Lightning nodes: ${lightning.join(', ') || 'none'})`,
        });
    }
    if (flow.from === flow.to)
      problems.push({ path: ['flows', index, 'to'], message: 'a flow needs two different nodes' });
  });
  return problems;
}

const isEmpty = (request: ActivityRequest) => request.random === undefined && (request.flows ?? []).length === 0;

/**
 * The plan of a request; an empty one runs lab.yaml's activity, or random payments with sim-ln's
 * defaults when the lab declares none.
 */
export function planOf(request: ActivityRequest, declared?: ActivityRequest): ActivityPlan {
  const chosen = isEmpty(request)
    ? { ...(declared && !isEmpty(declared) ? declared : { random: {} }), ...limits(request) }
    : request;
  const random = chosen.random;
  return {
    random: random && {
      seed: random.seed ?? randomInt(4_294_967_295),
      expectedAmountSat: random.expected_amount_sat ?? DEFAULT_EXPECTED_AMOUNT_SAT,
      capacityMultiplier: random.capacity_multiplier ?? DEFAULT_CAPACITY_MULTIPLIER,
    },
    flows: chosen.flows ?? [],
    maxInFlight: chosen.max_in_flight ?? DEFAULT_MAX_IN_FLIGHT,
    durationSeconds: chosen.duration_seconds,
  };
}

/** The limits a request sets, which also apply to the activity lab.yaml declares. */
function limits(request: ActivityRequest): ActivityRequest {
  return {
    ...(request.max_in_flight === undefined ? {} : { max_in_flight: request.max_in_flight }),
    ...(request.duration_seconds === undefined ? {} : { duration_seconds: request.duration_seconds }),
  };
}
