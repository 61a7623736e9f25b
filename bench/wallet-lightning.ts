// Invoice creations/s over real HTTP: the wallet server with its Lightning plugin on a real lnd
// (one regtest node started for the bench), on the database and Redis of bench/wallet.ts.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../services/wallet-server/src/app.js';
import { lightningPlugin, loadLightningConfig } from '../services/wallet-server/src/lightning/index.js';
import { lightningClient } from '../lib/lightning/implementations.js';
import { startRegtest } from '../test/support/regtest.js';
import type { BenchResult, Operation } from './load.js';

export interface InvoiceBenchContext {
  app: FastifyInstance;
  token: string;
  wallets: string[];
  run(name: string, port: number, operations: Operation[]): Promise<BenchResult>;
  report(r: BenchResult): void;
}

export async function benchInvoices(ctx: InvoiceBenchContext): Promise<void> {
  const regtest = await startRegtest({ lnd: ['alice'] });
  // Same config (token secret, database, Redis) as the core bench app, so its token works here.
  const app = await buildApp(ctx.app.config, {
    logger: false,
    plugins: [
      lightningPlugin(
        loadLightningConfig({ INVOICE_RECONCILE_MS: '600000' }),
        lightningClient('lnd', regtest.lndCredentials('alice')),
      ),
    ],
  });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const calls: Operation[] = ctx.wallets.map((wallet) => [
      {
        path: '/payments/invoices',
        headers: { authorization: `Bearer ${ctx.token}`, 'x-service-wallet-key': wallet },
        body: { amount_msat: 1000 },
      },
    ]);
    await ctx.run('warm-up (invoices)', port, calls);
    ctx.report(await ctx.run('invoice creations (lnd)', port, calls));
  } finally {
    await app.close();
    await regtest.stop();
  }
}
