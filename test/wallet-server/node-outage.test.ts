// The wallet server's lnd node down for a while, then back: an invoice paid then is credited, and
// the outage leaves no pile of listeners behind (Node warns of a possible memory leak at 11). (A
// stream opened while lnd starts can stay silent; the reconcile, every 2 s here, catches up.)
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { getChannels, pay } from 'ln-service';
import { startService } from '../../control-plane/src/lab/start-service.js';
import type { Regtest } from '../support/regtest.js';
import { as, createWallet, enrollAndSignIn, startInfra, type Infra, type TestUser } from './support.js';
import { eventually, lightningApp, serverGateway, serverNodeEnv, startServerLab, type LightningApp } from './lightning-support.js';

/** Long enough for a dozen attempts to open the stream again, one a second. */
const OUTAGE_MS = 13_000;

let infra: Infra;
let regtest: Regtest;
let server: LightningApp;
let user: TestUser;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

beforeAll(async () => {
  infra = await startInfra();
  regtest = await startServerLab('lnd', { capacity_sat: 2_000_000, push_sat: 500_000 });
  server = await lightningApp(infra, await serverGateway(serverNodeEnv(regtest)), { env: { INVOICE_RECONCILE_MS: '2000' } });
  user = await enrollAndSignIn(server.app);
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  await server?.app.close();
  await regtest?.stop();
  await infra?.stop();
});

test('lnd stopped for a while then started: an invoice paid after is credited, and no listeners piled up', async () => {
  const wallet = await createWallet(server.app, user.accessToken, 'outage');
  const alice = regtest.lab.services.alice;
  await regtest.session.runtime.stop(alice.handle!);
  await sleep(OUTAGE_MS);
  await startService(regtest.session, 'alice', { onEvent: () => undefined, persist: async () => undefined });
  await eventually(async () => (await getChannels({ lnd: regtest.lnd('bob'), is_active: true })).channels.length === 1, 'the channel active again', 60_000);

  // the server's connection to lnd comes back on its own reconnect schedule: until then 502, retry
  const invoice = await eventually(async () => {
    const answer = await as(server.app, user.accessToken, wallet)({ method: 'POST', url: '/payments/invoices', payload: { amount_msat: 25_000_000 } });
    if (answer.statusCode === 502) expect(answer.json().error.code).toBe('DEPENDENCY_UNAVAILABLE');
    else expect(answer.statusCode, answer.body).toBe(200);
    return answer.statusCode === 200 && (answer.json() as { payment_request: string });
  }, 'an invoice from the server once lnd is back', 60_000);
  await pay({ lnd: regtest.lnd('bob'), request: invoice.payment_request });
  await eventually(async () => (await server.app.ledger.btcBalanceMsat(wallet)) === 25_000_000n, 'the invoice credited', 30_000);

  expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map(String)).toEqual([]);
});
