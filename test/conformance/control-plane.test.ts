// Schemathesis against the control plane's OpenAPI document, with a lab up (btcd and two lnd nodes
// with a channel): no undocumented status code, no response off its schema, no 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { checkConformance, ensureSchemathesis } from './schemathesis.js';

const YAML =
  'name: conf\nindexer:\n  enabled: false\nnodes:\n  - name: alice\n  - name: bob\nchannels:\n  - from: alice\n    to: bob\n    capacity_sat: 500000\n';

describe('the control plane conforms to its OpenAPI document (schemathesis)', () => {
  let st: string;
  let cp: TestControlPlane;

  beforeAll(async () => {
    st = await ensureSchemathesis();
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, 'conf');
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('answers every generated request with a declared status and the error shape', async () => {
    const result = await checkConformance(st, `${cp.plane.url}/openapi.json`, {
      excludePaths: ['/shutdown'],
      maxTimeSeconds: 60,
    });
    expect(result.passed, result.output).toBe(true);
    console.log(`schemathesis, control plane:\n${result.output}`);
    // the lab it ran beside is untouched
    expect((await cp.call('GET', '/labs/conf')).body.status).toBe('ready');
  });
});
