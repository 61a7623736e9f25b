// Schemathesis against the OpenAPI documents of the lab's HTTP services, run by a real lab (the
// shared default-shaped lab, test/support/shared-lab.ts: btcd, lnd, the indexer, Postgres, Redis,
// the services as the lab launches them): no undocumented status code, no response off its schema
// or content type, no 5xx.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';
import { walletServerToken } from '../support/wallet-server-user.js';
import {
  CONFORMANCE_TEST_TIMEOUT_MS,
  type ConformanceRun,
  checkConformance,
  ensureSchemathesis,
} from './schemathesis.js';

describe('the lab services conform to their OpenAPI documents (schemathesis)', {
  timeout: CONFORMANCE_TEST_TIMEOUT_MS,
}, () => {
  let st: string;
  let lab: SharedLab;
  const url = (service: string) => lab.httpBase(service);

  beforeAll(async () => {
    [st, lab] = await Promise.all([ensureSchemathesis(), sharedLab()]);
  });

  const expectConformance = async (service: string, options: ConformanceRun = {}) => {
    const result = await checkConformance(st, `${await url(service)}/openapi.json`, options);
    expect(result.passed, result.output).toBe(true);
    console.log(`schemathesis, ${service}:\n${result.output}`);
  };

  it('chain adapter', async () => {
    await expectConformance('chain-adapter');
  });

  // four operations: more cases each
  it('faucet', async () => {
    await expectConformance('faucet', { maxExamples: 200 });
  });

  it('wallet server, signed in as an admin with a wallet', async () => {
    const base = await url('wallet-server');
    const token = await walletServerToken(base, lab.admin);
    const created = await fetch(`${base}/wallets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'conformance' }),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const { id: wallet } = await created.json();
    await expectConformance('wallet-server', {
      headers: { authorization: `Bearer ${token}`, 'x-service-wallet-key': wallet },
    });
  });
});
