// The wallet server's lnd node down for a while, then back: the server answers again soon after lnd
// is ready (not after grpc-js's default back-off, which would wait over a minute between attempts by
// then), an invoice paid then is credited (by the invoice stream, opened again after the
// outage and again if it falls silent, or by the reconcile, every 2 s here: docs/wallet-server.md
// says how often the stream alone did), and the outage leaves no pile of listeners behind (Node
// warns at 11). The server reaches lnd through a proxy that counts its connection attempts.
// Its own lab: it stops alice's lnd.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { getChannels, pay } from 'ln-service';
import { startService } from '../../control-plane/src/lab/start-service.js';
import type { StreamReopenReason } from '../../lib/lightning/client.js';
import { startTcpProxy, type TcpProxy } from '../support/proxy.js';
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

/**
 * How long lnd stays down, counted in what the server does meanwhile rather than in seconds: the
 * connection attempts after which grpc-js's default back-off (1 s, then 1.6 times longer after
 * each, 113 s in all) would wait 69 s for its next one, and more new invoice streams than the 11
 * listeners at which Node warns of a leak (one a second).
 */
const OUTAGE = { connectionAttempts: 10, streamsOpenedAgain: 12 };
/**
 * The server's own retries (of its connection, of its stream) come at least every second: it answers
 * well within this, however busy the machine, where the default back-off would still be waiting.
 */
const BACK_WITHIN_MS = 30_000;

let infra: Infra;
let regtest: Regtest;
let aliceLink: TcpProxy;
/** The invoice streams opened again after one broke (lnd unreachable). */
let streamsOpenedAgain = 0;
let server: LightningApp;
let user: TestUser;
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);

beforeAll(async () => {
  infra = await startInfra();
  regtest = await startServerLab('lnd', { capacity_sat: 2_000_000, push_sat: 500_000 });
  aliceLink = await startTcpProxy(Number(regtest.lndCredentials('alice').socket.split(':').at(-1)));
  const node = await serverNode({ ...serverNodeEnv(regtest), LND_GRPC_HOST: `127.0.0.1:${aliceLink.port}` });
  const watch = node.watchSettledInvoices!.bind(node);
  node.watchSettledInvoices = (onSettled, onReopened) =>
    watch(onSettled, (reason: StreamReopenReason) => {
      if (reason === 'broken') streamsOpenedAgain += 1;
      onReopened?.(reason);
    });
  server = await lightningApp(infra, node, { env: { INVOICE_RECONCILE_MS: '2000' } });
  user = await enrollAndSignIn(server.app);
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  await server?.app.close();
  await aliceLink?.close();
  await regtest?.stop();
  await infra?.stop();
});

test('lnd stopped for a while then started: the server answers again at once, an invoice paid after is credited, and no listeners piled up', async () => {
  const wallet = await createWallet(server.app, user.accessToken, 'outage');
  const alice = regtest.lab.services.alice;
  await regtest.session.runtime.stop(alice.handle!);
  const attemptsBefore = aliceLink.connections();
  const streamsBefore = streamsOpenedAgain;
  await eventually(
    async () =>
      aliceLink.connections() - attemptsBefore >= OUTAGE.connectionAttempts &&
      streamsOpenedAgain - streamsBefore >= OUTAGE.streamsOpenedAgain,
    `${OUTAGE.connectionAttempts} connection attempts to the stopped lnd and ${OUTAGE.streamsOpenedAgain} invoice streams opened again`,
    120_000,
  );
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
