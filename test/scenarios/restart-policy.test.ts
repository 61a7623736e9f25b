// The check of the wallet-server kill scenario both ways: it passes on the default lab (in
// library.test.ts); here, on a lab whose supervisor must not restart the wallet server, it fails at
// the step after the kill, and the failure names the kill and the service's state, without waiting
// out the step's retry. Its own lab, because the scenario kills the wallet server for good; and only
// what the scenario uses of the default lab (alice -> bob -> carol, the wallet server on alice): no
// indexer, faucet nor chain adapter to start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../scenarios/src/load/load-scenario.js';
import { junitXml } from '../../scenarios/src/report/junit.js';
import { runScenario } from '../../scenarios/src/run/runner.js';
import { walletServerLineLab } from '../support/control-plane.js';
import { startLab, type RunningLab } from './support.js';

const LAB = walletServerLineLab('no-restart', '{ node: alice, restart: no }');

describe('the wallet-server kill scenario on a lab that does not restart the wallet server', () => {
  let lab: RunningLab;

  beforeAll(async () => {
    lab = await startLab('no-restart', LAB);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('fails at the step after the kill as soon as the lab reports the server down, and the report names the kill', async () => {
    const scenario = loadScenarioFile('scenarios/wallet-server-kill.yaml');
    const killStep = scenario.steps.find((step) => step.type === 'action' && step.kind === 'kill')!;
    const report = await runScenario(scenario, { api: lab.client, lab: lab.name });
    expect(report.passed).toBe(false);
    const failed = report.steps.filter((step) => step.status === 'failed');
    expect(failed.map((step) => step.label)).toEqual(['the wallet server answers again']);
    expect(failed[0].error).toContain(`this run did kill wallet-server at step ${killStep.id}`);
    expect(failed[0].error).toMatch(/the lab reports wallet-server (failed|stopped), restart policy no/);
    // its retry (60 s, every 500 ms) ends once the lab reports the server down for good
    expect(failed[0].error).toMatch(/not tried again: wallet-server stays (failed|stopped) until it is started/);
    expect(failed[0].attempts).toBeLessThan(10);
    expect(report.steps.filter((step) => step.status === 'passed').map((step) => step.id)).toContain(killStep.id);
    expect(junitXml({ lab: lab.name, passed: false, scenarios: [report] })).toContain(
      `kill wallet-server at step ${killStep.id}`,
    );
  }, 300_000);
});
