// Schemathesis against the OpenAPI documents of the lab's node APIs and of the RGB proxy, run by a
// real lab: an LDK node (reglab-ldk, its document written by hand in nodes/ldk/src/openapi.json), an
// rgb node (rgb-lib behind RLN's API) and the consignment proxy the rgb node uses. No undocumented
// status code, no response off its schema or content type, no 5xx.
// Its own lab: LDK and rgb nodes, which the default lab has not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtest, type Regtest } from '../support/regtest.js';
import {
  CONFORMANCE_TEST_TIMEOUT_MS,
  type ConformanceRun,
  checkConformance,
  ensureSchemathesis,
} from './schemathesis.js';

describe('the node APIs and the RGB proxy conform to their OpenAPI documents (schemathesis)', {
  timeout: CONFORMANCE_TEST_TIMEOUT_MS,
}, () => {
  let st: string;
  let regtest: Regtest;

  beforeAll(async () => {
    st = await ensureSchemathesis();
    regtest = await startRegtest({
      lnd: ['alice'],
      ldk: ['dave'],
      rgb: ['erin'],
      indexer: true,
      channels: [{ from: 'alice', to: 'dave', capacity_sat: 1_000_000 }],
    });
  });
  afterAll(async () => {
    await regtest?.stop();
  });

  const expectConformance = async (service: string, port: string, options: ConformanceRun = {}) => {
    const result = await checkConformance(st, `http://${regtest.address(service, port)}/openapi.json`, options);
    expect(result.passed, result.output).toBe(true);
    console.log(`schemathesis, ${service}:\n${result.output}`);
  };

  // Its event stream (server-sent events) stays open until the client leaves: no answer to check. A
  // payment waits up to 60 s for its final answer (wait_secs), as a BOLT12 offer of a node that is
  // not there does before it answers 202 (schemathesis pays the offers the node made it, which LDK
  // cannot route to), each case such a minute: a time budget rather than a number of cases.
  it('LDK node (reglab-ldk)', async () => {
    await expectConformance('dave', 'api', {
      excludePaths: ['/v1/events'],
      requestTimeoutSeconds: 75,
      maxTimeSeconds: 25,
    });
  });

  it('rgb node', async () => {
    await expectConformance('erin', 'api', { maxExamples: 50 });
  });

  // The protocol answers a call it refuses (an unknown method, bad params) with a JSON-RPC error and
  // HTTP 200, as rgb-lib expects: schema-violating calls are refused, not with an HTTP 4xx. Two
  // operations: more cases each.
  it('RGB consignment proxy', async () => {
    await expectConformance('rgb-proxy', 'http', { excludeChecks: ['negative_data_rejection'], maxExamples: 600 });
  });
});
