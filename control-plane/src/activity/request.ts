// An activity as lab.yaml, the API's body and the scenario step write it: random payments
// (sim-ln's random activity), defined flows, or both, with a bound on the payments in flight. One
// schema for the three.

/** A defined flow: `amount_sat` from `from` to `to` every `interval_seconds`, `count` times (for ever when absent). */
/** The smallest pace: a node sends a thousandth of its capacity an hour. */
const MIN_CAPACITY_MULTIPLIER = 0.001;

export interface FlowSpec {
  from: string;
  to: string;
  amount_sat: number;
  interval_seconds: number;
  count?: number;
  /** The wait before its first payment. */
  start_seconds?: number;
}

/** An activity as lab.yaml, the API and scenarios write it. */
export interface ActivityRequest {
  random?: { seed?: number; expected_amount_sat?: number; capacity_multiplier?: number };
  flows?: FlowSpec[];
  max_in_flight?: number;
  /** Stops by itself after this long. */
  duration_seconds?: number;
}

/** sim-ln's defaults: 3,800,000 msat expected, a capacity multiplier of 2. */
export const DEFAULT_EXPECTED_AMOUNT_SAT = 3_800;
export const DEFAULT_CAPACITY_MULTIPLIER = 2;
export const DEFAULT_MAX_IN_FLIGHT = 8;

const nodeName = { type: 'string', minLength: 1, maxLength: 31 } as const;

export const activityRequestSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    random: {
      type: 'object',
      additionalProperties: false,
      description: 'random payments weighted by channel capacity (sim-ln); {} for the defaults',
      properties: {
        seed: {
          type: 'integer',
          minimum: 0,
          maximum: 4_294_967_295,
          description: 'the same seed on the same lab replays the same payments (a new one when left out)',
        },
        expected_amount_sat: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'the mean amount' },
        capacity_multiplier: {
          type: 'number',
          // not exclusiveMinimum: OpenAPI 3.0 documents take it only as a flag beside a minimum
          minimum: MIN_CAPACITY_MULTIPLIER,
          maximum: 10_000,
          description: `how many times its capacity each node sends in an hour (at least ${MIN_CAPACITY_MULTIPLIER})`,
        },
      },
    },
    flows: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to', 'amount_sat', 'interval_seconds'],
        properties: {
          from: nodeName,
          to: nodeName,
          amount_sat: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
          interval_seconds: { type: 'number', minimum: 0.05, maximum: 86_400 },
          count: { type: 'integer', minimum: 1, maximum: 1_000_000 },
          start_seconds: { type: 'number', minimum: 0, maximum: 86_400 },
        },
      },
    },
    max_in_flight: { type: 'integer', minimum: 1, maximum: 64, description: 'payments under way at once' },
    duration_seconds: { type: 'integer', minimum: 1, maximum: 604_800, description: 'stop by itself after this long' },
  },
} as const;
