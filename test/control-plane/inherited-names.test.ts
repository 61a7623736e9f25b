// Names every JavaScript object inherits (__proto__, constructor, toString…) sent as a lab, service or
// node name: each is a name the lab does not have (404 or 400, in the one error shape), acts on
// nothing, and leaves the control plane answering as before. On the shared default-shaped lab
// (test/support/shared-lab.ts), which these requests must leave as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';

const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

describe('names an object inherits, sent to the control plane', () => {
  let lab: SharedLab;
  const services = async () =>
    (await lab.call('GET', `/labs/${lab.name}`)).body.services.map((service: { name: string; status: string }) => [
      service.name,
      service.status,
    ]);

  beforeAll(async () => {
    lab = await sharedLab();
  });

  it('are no service of the lab: nothing is stopped, killed or read', async () => {
    const before = await services();
    for (const name of INHERITED) {
      for (const action of ['stop', 'kill', 'restart', 'start']) {
        const answer = await lab.call('POST', `/labs/${lab.name}/services/${name}/${action}`);
        expect(answer.status, `${action} ${name}: ${JSON.stringify(answer.body)}`).toBe(404);
        expect(answer.body.error).toMatchObject({ code: 'NO_SUCH_SERVICE', message: expect.stringContaining(name) });
      }
      for (const path of [`/labs/${lab.name}/logs/${name}`, `/labs/${lab.name}/services/${name}/credentials`]) {
        const answer = await lab.call('GET', path);
        expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(404);
        expect(answer.body.error.code).toBe('NO_SUCH_SERVICE');
      }
    }
    expect(await services()).toEqual(before);
    // errors are still answered in their shape (an inherited `status` once broke every one)
    const unknown = await lab.call('GET', '/labs/no-such-lab');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NO_SUCH_LAB');
  });

  it('are no lab and no node: refused before any work is queued', async () => {
    const answer = await lab.call('GET', '/labs/constructor');
    expect(answer.status, JSON.stringify(answer.body)).toBe(404);
    expect(answer.body.error.code).toBe('NO_SUCH_LAB');
    for (const name of INHERITED) {
      const pay = await lab.call('POST', `/labs/${lab.name}/payments`, { from: name, to: 'carol', amount_sat: 1 });
      expect(pay.status, `pay from ${name}: ${JSON.stringify(pay.body)}`).toBe(400);
      expect(pay.body.error.code).toBe('NO_SUCH_NODE');
      const fund = await lab.call('POST', `/labs/${lab.name}/fund`, { node: name, amount_sat: 1000 });
      expect(fund.status, `fund ${name}: ${JSON.stringify(fund.body)}`).toBe(400);
      expect(fund.body.error.code).toBe('NO_SUCH_NODE');
    }
  });
});
