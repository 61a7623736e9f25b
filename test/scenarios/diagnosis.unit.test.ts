// What a failure says about the lab: the lab views are given as data (what GET /labs/{lab} answered
// when the run began and when the step failed).
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../scenarios/src/run/diagnosis.js';
import { StepFailure } from '../../scenarios/src/steps/failure.js';
import { ServiceDirectory, type LabView } from '../../scenarios/src/steps/services.js';

const service = (name: string, status: string, restarts: number, extra: object = {}) => ({
  name,
  kind: name,
  status,
  restarts,
  restartPolicy: 'on-failure',
  info: {},
  ...extra,
});
const atStart: LabView = {
  nodes: [],
  services: [
    service('wallet-server', 'ready', 0),
    service('carol', 'ready', 0),
    service('faucet', 'ready', 0),
    service('bob', 'ready', 0),
  ],
};
const atFailure: LabView = {
  nodes: [],
  services: [
    service('wallet-server', 'failed', 0, {
      restartPolicy: 'no',
      error: 'exited on SIGKILL\n--- last lines of its log ---\n{"msg":"listening"}',
    }),
    service('carol', 'ready', 1),
    service('faucet', 'stopped', 0),
    service('bob', 'unhealthy', 0, { error: 'the probe timed out' }),
  ],
};

describe('diagnosis of a failed step', () => {
  it("names the unreachable service's state, what changed in the lab, and the run's own faults", async () => {
    const error = new StepFailure('wallet-server did not answer GET /health: connect ECONNREFUSED 127.0.0.1:4000', {
      unreachable: 'wallet-server',
    });
    const faults = [
      { action: 'stop', target: 'faucet', stepId: '3' },
      { action: 'kill', target: 'wallet-server', stepId: '9' },
    ];
    expect(await diagnose(error, faults, new ServiceDirectory(async () => atFailure), atStart)).toBe(
      'wallet-server did not answer GET /health: connect ECONNREFUSED 127.0.0.1:4000 [the lab reports wallet-server failed, restart policy no, 0 restart(s): exited on SIGKILL; ' +
        'meanwhile the supervisor restarted carol 1 time(s) (now ready); bob is unhealthy: the probe timed out; this run did kill wallet-server at step 9]',
    );
  });

  it('lists every fault of the run when no service went unanswered', async () => {
    const faults = [{ action: 'disconnect', target: 'bob-carol', stepId: '1' }];
    expect(await diagnose(new Error('no route'), faults, new ServiceDirectory(async () => atStart), atStart)).toBe(
      'no route [this run did disconnect bob-carol at step 1]',
    );
  });

  it('says the message alone when nothing happened, and asks nothing of a lab it could not reach at the start', async () => {
    expect(
      await diagnose(new Error('$.status is "failed"'), [], new ServiceDirectory(async () => atStart), atStart),
    ).toBe('$.status is "failed"');
    const unreachableLab = new ServiceDirectory(async () => {
      throw new Error('control plane gone');
    });
    expect(await diagnose(new Error('boom'), [], unreachableLab, undefined)).toBe('boom');
    expect(await diagnose(new Error('boom'), [], unreachableLab, atStart)).toBe(
      'boom [the lab could not be asked what happened: control plane gone]',
    );
  });
});
