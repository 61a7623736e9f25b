// The wallet server's lnd node down for a while, then back: the server answers again within a few
// seconds of lnd being ready (not after grpc-js's default back-off, which reaches 16 s between
// attempts by then), an invoice paid then is credited (by the invoice stream, opened again after the
// outage and again if it falls silent, or by the reconcile, every 2 s here: docs/wallet-server.md
// says how often the stream alone did), and the outage leaves no pile of listeners behind (Node
// warns at 11).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { getChannels, pay } from 'ln-service';
import { startService } from '../../control-plane/src/lab/start-service.js';
import type { Regtest } from '../support/regtest.js';
import { as, createWallet, enrollAndSignIn, startInfra, type Infra, type TestUser } from './support.js';
import {
  eventually,
  lightningApp,
  serverNode,
  serverNodeEnv,
  startServerLab,
  type LightningApp,
} from './lightning-support.js';

/** Long enough for dozens of attempts to open the stream again, one a second, and for grpc-js's
 * default back-off to wait 16 s between two connection attempts. */
const OUTAGE_MS = 30_000;
/** The server's own retries (of its connection, of its stream) come at least every second. */
const BACK_WITHIN_MS = 5_000;

let infra: Infra;
let regtest: Regtest;
let server: LightningApp;
let user: TestUser;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

beforeAll(async () => {
  infra = await startInfra();
  regtest = await startServerLab('lnd', { capacity_sat: 2_000_000, push_sat: 500_000 });
  server = await lightningApp(infra, await serverNode(serverNodeEnv(regtest)), {
    env: { INVOICE_RECONCILE_MS: '2000' },
  });
  user = await enrollAndSignIn(server.app);
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  await server?.app.close();
  await regtest?.stop();
  await infra?.stop();
});

test('lnd stopped for a while then started: the server answers again at once, an invoice paid after is credited, and no listeners piled up', async () => {
  const wallet = await createWallet(server.app, user.accessToken, 'outage');
  const alice = regtest.lab.services.alice;
  await regtest.session.runtime.stop(alice.handle!);
  await sleep(OUTAGE_MS);
  await startService(regtest.session, 'alice', { onEvent: () => undefined, persist: async () => undefined });

  // lnd is ready (SERVER_ACTIVE): the server may still answer 502 (retry) for a moment, not longer
  const invoice = await eventually(
    async () => {
      const answer = await as(
        server.app,
        user.accessToken,
        wallet,
      )({ method: 'POST', url: '/payments/invoices', payload: { amount_msat: 25_000_000 } });
      if (answer.statusCode === 502) expect(answer.json().error.code).toBe('DEPENDENCY_UNAVAILABLE');
      else expect(answer.statusCode, answer.body).toBe(200);
      return answer.statusCode === 200 && (answer.json() as { payment_request: string });
    },
    `an invoice from the server within ${BACK_WITHIN_MS} ms of lnd being ready`,
    BACK_WITHIN_MS,
  );
  await eventually(
    async () => (await getChannels({ lnd: regtest.lnd('bob'), is_active: true })).channels.length === 1,
    'the channel active again',
    60_000,
  );
  await pay({ lnd: regtest.lnd('bob'), request: invoice.payment_request });
  await eventually(
    async () => (await server.app.ledger.btcBalanceMsat(wallet)) === 25_000_000n,
    'the invoice credited',
    30_000,
  );

  expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning').map(String)).toEqual([]);
});
