// An activity's plan from a request: lab.yaml's when nothing is asked, sim-ln's defaults, the
// lab's Lightning nodes only; lab.yaml's `activity:` checked with the lab.
import { describe, expect, it } from 'vitest';
import { planOf, planProblems } from '../../control-plane/src/activity/plan.js';
import { activityRequest, parseFlow } from '../../control-plane/src/cli/activity.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { LabSpecError } from '../../control-plane/src/spec/spec-error.js';

const NODES = parseLabSpec(`name: t
nodes:
  - { name: alice, kind: lnd }
  - { name: bob, kind: ldk, chain_source: electrum }
  - { name: issuer, kind: rgb }
`).nodes;

describe('activity plan', () => {
  it('runs random payments with sim-ln defaults when nothing is asked or declared, with a seed chosen', () => {
    const plan = planOf({});
    expect(plan).toMatchObject({
      random: { expectedAmountSat: 3800, capacityMultiplier: 2, seed: expect.any(Number) },
      flows: [],
      maxInFlight: 8,
    });
  });

  it("runs lab.yaml's activity when nothing is asked, with the limits the request sets", () => {
    const declared = { flows: [{ from: 'alice', to: 'bob', amount_sat: 10, interval_seconds: 1 }] };
    expect(planOf({ max_in_flight: 2, duration_seconds: 30 }, declared)).toEqual({
      random: undefined,
      flows: declared.flows,
      maxInFlight: 2,
      durationSeconds: 30,
    });
    expect(planOf({ random: { seed: 5 } }, declared)).toMatchObject({ random: { seed: 5 }, flows: [] });
  });

  it('refuses flows naming a node that is not a Lightning node of the lab, or the same node twice', () => {
    expect(
      planProblems(
        {
          flows: [
            { from: 'alice', to: 'zed', amount_sat: 1, interval_seconds: 1 },
            { from: 'issuer', to: 'bob', amount_sat: 1, interval_seconds: 1 },
            { from: 'bob', to: 'bob', amount_sat: 1, interval_seconds: 1 },
          ],
        },
        NODES,
      ),
    ).toEqual([
      { path: ['flows', 0, 'to'], message: 'no node named "zed" (Lightning nodes: alice, bob)' },
      {
        path: ['flows', 1, 'from'],
        message: '"issuer" is an rgb node, not a Lightning node (Lightning nodes: alice, bob)',
      },
      { path: ['flows', 2, 'to'], message: 'a flow needs two different nodes' },
    ]);
  });

  it("checks lab.yaml's activity: its line and what is wrong", () => {
    const yaml = `name: t
nodes:
  - { name: alice }
  - { name: bob }
activity:
  start: true
  flows:
    - { from: alice, to: carol, amount_sat: 100, interval_seconds: 1 }
`;
    let caught: unknown;
    try {
      parseLabSpec(yaml);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LabSpecError);
    expect((caught as LabSpecError).problems).toEqual([
      expect.objectContaining({ line: 8, message: 'no node named "carol" (Lightning nodes: alice, bob)' }),
    ]);
    expect(parseLabSpec(yaml.replace('carol', 'bob')).activity).toMatchObject({ start: true, flows: [{ to: 'bob' }] });
  });
});

describe('reglab activity start options', () => {
  it('reads a flow from its fields in order, spaces or commas between', () => {
    expect(parseFlow('alice carol 1000 2.5')).toEqual({
      from: 'alice',
      to: 'carol',
      amount_sat: 1000,
      interval_seconds: 2.5,
    });
    expect(parseFlow('alice,carol,1000,1,10,5')).toEqual({
      from: 'alice',
      to: 'carol',
      amount_sat: 1000,
      interval_seconds: 1,
      count: 10,
      start_seconds: 5,
    });
    expect(() => parseFlow('alice carol')).toThrow(
      '--flow takes FROM TO AMOUNT_SAT INTERVAL_SECONDS [COUNT [START_SECONDS]], not "alice carol"',
    );
    expect(() => parseFlow('alice carol 1k 1')).toThrow('a flow amount must be a whole number, not "1k"');
  });

  it('asks for random payments when a random option is given, and for nothing (lab.yaml or defaults) otherwise', () => {
    expect(activityRequest({ flow: [] })).toEqual({});
    expect(activityRequest({ flow: [], seed: 7, maxInFlight: 3 })).toEqual({ random: { seed: 7 }, max_in_flight: 3 });
    expect(activityRequest({ flow: ['alice bob 5 1'], random: true, duration: 60 })).toEqual({
      random: {},
      flows: [{ from: 'alice', to: 'bob', amount_sat: 5, interval_seconds: 1 }],
      duration_seconds: 60,
    });
  });
});
