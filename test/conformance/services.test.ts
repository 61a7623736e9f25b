// Schemathesis against the OpenAPI documents of the lab's HTTP services, run by a real lab (btcd,
// lnd, the indexer, Postgres, Redis, the services as the lab launches them): no undocumented status
// code, no response off its schema or content type, no 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { newKey, REGTEST_ADDRESS, signNonce } from '../wallet-server/support.js';
import { checkConformance, ensureSchemathesis } from './schemathesis.js';

describe('the lab services conform to their OpenAPI documents (schemathesis)', () => {
  let st: string;
  let regtest: Regtest;
  const admin = newKey();
  const url = (service: string) => `http://${regtest.address(service, 'http')}`;

  beforeAll(async () => {
    st = await ensureSchemathesis();
    regtest = await startRegtest({
      lnd: ['alice'],
      indexer: true,
      services: {
        'wallet-server': { node: 'alice', admin_pubkeys: [admin.pubkey] },
        faucet: { node: 'alice' },
        'chain-adapter': {},
      },
    });
  });
  afterAll(async () => {
    await regtest?.stop();
  });

  const expectConformance = async (service: string, headers?: Record<string, string>) => {
    const result = await checkConformance(st, `${url(service)}/openapi.json`, { headers });
    expect(result.passed, result.output).toBe(true);
    console.log(`schemathesis, ${service}:\n${result.output}`);
  };

  it('chain adapter', async () => {
    await expectConformance('chain-adapter');
  });

  it('faucet', async () => {
    await expectConformance('faucet');
  });

  it('wallet server, signed in as an admin with a wallet', async () => {
    const base = url('wallet-server');
    const post = async (path: string, body: unknown, token?: string) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
      return response.json();
    };
    await post('/auth/enroll', { pubkey: admin.pubkey, bitcoin_address: REGTEST_ADDRESS });
    const { nonce } = await (await fetch(`${base}/auth/challenge?pubkey=${admin.pubkey}`)).json();
    const { access_token: token } = await post('/auth/verify', {
      pubkey: admin.pubkey,
      nonce,
      signature: await signNonce(admin.secretKey, nonce),
    });
    const { id: wallet } = await post('/wallets', { name: 'conformance' }, token);
    await expectConformance('wallet-server', { authorization: `Bearer ${token}`, 'x-service-wallet-key': wallet });
  });
});
