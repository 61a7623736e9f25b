import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile, parseScenario, ScenarioFileError } from '../../scenarios/src/load/load-scenario.js';
import type { ActionStep, ParallelStep } from '../../scenarios/src/model.js';
import { STEP_KINDS } from '../../scenarios/src/steps/index.js';
import { formatProblem } from '../../lib/yaml-problems.js';

function problemsOf(text: string): string[] {
  try {
    parseScenario(text, 'broken.yaml');
  } catch (error) {
    if (error instanceof ScenarioFileError) return error.problems.map(formatProblem);
    throw error;
  }
  throw new Error('expected the scenario to be refused');
}

describe('scenario files are checked before anything runs', () => {
  it('reads a version 2 file: actions, captures, expectations, timeouts, retries, groups and repeats', () => {
    const scenario = parseScenario(
      [
        'name: flow',
        'vars: { amount: 1000, user: "qa-${run.id}" }',
        'timeout: 45s',
        'steps:',
        '  - invoice: { node: carol, amount_msat: "${amount}" }',
        '    save: { invoice: $.payment_request, hash: $.payment_hash }',
        '  - name: alice pays',
        '    pay: { from: alice, invoice: "${invoice}" }',
        '    timeout: 90',
        '    retry: { attempts: 3, interval: 500ms }',
        '    expect: { $.hops: 2, $.feeSat: { at_most: 10 } }',
        '  - parallel:',
        '      - mine: { blocks: 1 }',
        '      - lab: {}',
        '  - wallet_server.sign_in: { user: "${user}" }',
        '    repeat: { count: 5, concurrency: 2 }',
        '    expect: { $.succeeded: 5 }',
      ].join('\n'),
      'flow.yaml',
    );
    const [invoice, pay, group, signIn] = scenario.steps as [ActionStep, ActionStep, ParallelStep, ActionStep];
    expect(invoice).toMatchObject({
      id: '1',
      kind: 'invoice',
      line: 5,
      timeoutMs: 45_000,
      save: { invoice: '$.payment_request' },
    });
    expect(pay).toMatchObject({
      id: '2',
      label: 'alice pays',
      timeoutMs: 90_000,
      retry: { attempts: 3, intervalMs: 500 },
      expect: { '$.hops': 2 },
    });
    expect(group.steps.map((step) => step.id)).toEqual(['3.1', '3.2']);
    expect(signIn.repeat).toEqual({ count: 5, concurrency: 2 });
  });

  it('points at an unknown action, and suggests the one meant', () => {
    expect(
      problemsOf(
        'name: x\nsteps:\n  - mine: { blocks: 1 }\n  - teleport: { to: mars }\n  - wallet_server.pya: { user: a }\n',
      ),
    ).toEqual([
      expect.stringMatching(
        /^broken\.yaml:4:5: steps\[1\]\.teleport: unknown step "teleport" \(steps: mine, fund, .*\)$/,
      ),
      'broken.yaml:5:5: steps[2].wallet_server.pya: unknown step "wallet_server.pya": did you mean "wallet_server.pay"?',
    ]);
  });

  it("points at a wrong argument, at the argument's own line", () => {
    expect(
      problemsOf('name: x\nsteps:\n  - mine:\n      blocks: two\n  - pay:\n      from: alice\n      too: carol\n'),
    ).toEqual([
      'broken.yaml:4:7: steps[0].mine.blocks: must be integer',
      'broken.yaml:7:7: steps[1].pay.too: unknown key "too"',
      'broken.yaml:5:5: steps[1].pay: give either invoice, or to and amount_sat',
    ]);
  });

  it('refuses a variable used before any step saves it, and a ${...} it cannot read', () => {
    expect(
      problemsOf(
        'name: x\nsteps:\n  - pay: { from: alice, invoice: "${invoice}" }\n  - invoice: { node: carol, amount_msat: 1000 }\n    save: { invoice: $.payment_request }\n  - mine: { blocks: "${2 * 3}" }\n',
      ),
    ).toEqual([
      'broken.yaml:3:25: steps[0].pay.invoice: no variable "invoice" is defined here (none is defined so far besides run.id and lab); vars: or an earlier step\'s save: defines one',
      'broken.yaml:6:13: steps[2].mine.blocks: cannot read "* 3" in "${2 * 3}" (only + and - may join values)',
    ]);
  });

  it('keeps saves of a parallel group from its sibling steps', () => {
    const text =
      'name: x\nsteps:\n  - parallel:\n      - invoice: { node: carol, amount_msat: 1000 }\n        save: { a: $.payment_hash }\n      - invoice_state: { node: carol, hash: "${a}" }\n  - invoice_state: { node: carol, hash: "${a}" }\n';
    expect(problemsOf(text)).toEqual([
      'broken.yaml:6:39: steps[0].parallel[1].invoice_state.hash: no variable "a" is defined here (none is defined so far besides run.id and lab); vars: or an earlier step\'s save: defines one',
    ]);
  });

  it('checks paths, matchers, durations, retries and repeats', () => {
    expect(
      problemsOf(
        [
          'name: x',
          'steps:',
          '  - lab: {}',
          '    save: { h: chain.height, run: $.x }',
          '    expect: { $.status: { equal: ready }, $.chain.height: { at_least: lots }, $.name: { matches: "(" } }',
          '    timeout: 2h',
          '    retry: { attempts: 0 }',
          '  - mine: { blocks: 1 }',
          '    repeat: { count: 3 }',
          '    expect_error: nope',
          '  - mine: { blocks: 1 }',
          '    fund: { node: bob, amount_sat: 1000 }',
          '  - mine: { blocks: 1 }',
          '    retry: { interval: 1s }',
        ].join('\n'),
      ),
    ).toEqual([
      'broken.yaml:7:14: steps[0].retry.attempts: must be >= 1',
      'broken.yaml:4:13: steps[0].save.h: "chain.height" is not a path: paths start with $ (e.g. $.payment_request)',
      'broken.yaml:4:30: steps[0].save.run: "run" is a built-in variable (run, lab, repeat); choose another name',
      'broken.yaml:5:15: steps[0].expect.$.status: "equal" is not a matcher (equals, at_least, at_most, matches, one_of, exists); to compare a whole object write { equals: {...} }',
      'broken.yaml:5:61: steps[0].expect.$.chain.height.at_least: at_least is a number (or ${...}), not "lots"',
      expect.stringMatching(/^broken\.yaml:5:89: steps\[0\]\.expect\.\$\.name\.matches: not a regular expression: /),
      'broken.yaml:6:5: steps[0].timeout: "2h" is not a duration: write 500ms, 30s, 2m or a number of seconds',
      'broken.yaml:10:5: steps[1].expect_error: a repeated step counts its failures: expect { $.failed: N } instead of expect_error',
      'broken.yaml:12:5: steps[2].fund: one action per step: "mine" and "fund" are two; write them as two steps',
      'broken.yaml:14:5: steps[3].retry: say how long to keep trying: attempts: N, for: 30s, or both',
    ]);
  });

  it('reports YAML syntax errors and a missing name with their lines', () => {
    expect(problemsOf('name: x\nsteps:\n  - mine: { blocks: 1\n')[0]).toMatch(/^broken\.yaml:4:1: \(top level\): /);
    expect(problemsOf('steps:\n  - mine: { blocks: 1 }\n')).toEqual([
      'broken.yaml:1:1: (top level): "name" is required',
    ]);
  });

  it('still runs version 1 files: their expect step becomes a lab step checked again for 10 s', () => {
    const scenario = loadScenarioFile('scenarios/alice-to-carol.yaml');
    const expectStep = scenario.steps[1] as ActionStep;
    expect(expectStep).toMatchObject({
      kind: 'lab',
      label: 'expect {"node":"carol","channel_balance_sat":{"at_least":25000}}',
      expect: {
        '$.nodes[name=carol]': { exists: true },
        '$.nodes[name=carol].channelBalanceSat': { at_least: 25_000 },
      },
      retry: { forMs: 10_000, intervalMs: 250 },
    });
    expect(scenario.steps[2]).toMatchObject({ kind: 'pay', expectError: { message: 'two different nodes' } });
    expect(problemsOf('name: x\nsteps:\n  - expect: { node: carol, channel_balance: 5 }\n')).toEqual([
      'broken.yaml:3:28: steps[0].expect.channel_balance: unknown key "channel_balance"',
    ]);
  });

  it('accepts every scenario of the library, and those for labs with rgb nodes (scenarios/rgb)', () => {
    const files = ['scenarios', 'scenarios/rgb'].flatMap((folder) =>
      readdirSync(folder)
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => `${folder}/${name}`),
    );
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) expect(() => loadScenarioFile(file), file).not.toThrow();
  });

  it('documents every step kind and every scenario of the library in docs/scenarios.md', () => {
    const docs = readFileSync('docs/scenarios.md', 'utf8');
    for (const kind of STEP_KINDS) expect(docs, kind.name).toContain(`\`${kind.name}: `);
    for (const file of readdirSync('scenarios').filter((name) => name.endsWith('.yaml')))
      expect(docs, file).toContain(`| \`${file}\` |`);
  });
});
