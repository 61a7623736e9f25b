// Schemathesis against the control plane's OpenAPI document, with a lab up (the shared
// default-shaped lab, test/support/shared-lab.ts): no undocumented status code, no response off
// its schema, no 5xx. The generated requests name labs, services and jobs that do not exist, so
// the lab they run beside stays as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';
import { CONFORMANCE_TEST_TIMEOUT_MS, checkConformance, ensureSchemathesis } from './schemathesis.js';

describe('the control plane conforms to its OpenAPI document (schemathesis)', {
  timeout: CONFORMANCE_TEST_TIMEOUT_MS,
}, () => {
  let st: string;
  let lab: SharedLab;

  beforeAll(async () => {
    [st, lab] = await Promise.all([ensureSchemathesis(), sharedLab()]);
  });

  it('answers every generated request with a declared status and the error shape', async () => {
    const services = async () =>
      (await lab.call('GET', `/labs/${lab.name}`)).body.services.map((service: { name: string; status: string }) => [
        service.name,
        service.status,
      ]);
    const before = await services();
    const result = await checkConformance(st, `${lab.url}/openapi.json`, {
      excludePaths: ['/shutdown'],
    });
    expect(result.passed, result.output).toBe(true);
    console.log(`schemathesis, control plane:\n${result.output}`);
    // the lab it ran beside is untouched
    expect((await lab.call('GET', `/labs/${lab.name}`)).body.status).toBe('ready');
    expect(await services()).toEqual(before);
  });
});
