// The Lightning side of the wallet server as one Fastify plugin: invoices, pay, keysend, LNURL,
// lightning addresses, node health. See CONTRACT.md and docs/wallet-server.md.
import type { FastifyInstance } from 'fastify';
import type { LightningClient } from '../../../../lib/lightning/client.js';
import { addressRoutes } from './address-routes.js';
import { LightningAddresses } from './addresses.js';
import { reconcileIntervalMs, type LightningConfig } from './config.js';
import { IncomingInvoices } from './incoming.js';
import { NodeInvoiceCancels } from './invoice-cancels.js';
import { lnurlRoutes } from './lnurl-routes.js';
import { nodeHealthRoutes } from './node-health.js';
import { OutgoingPayments } from './outgoing.js';
import { paymentRoutes } from './payment-routes.js';
import { PublicUrls } from './public-url.js';
import { startReconcileTimer } from './reconcile-timer.js';

export { loadLightningConfig, type LightningConfig } from './config.js';

/** The server's node is `node`, a client of lib/lightning; the plugin closes it with the app. */
export function lightningPlugin(config: LightningConfig, node: LightningClient) {
  return async function lightning(app: FastifyInstance): Promise<void> {
    const log = app.log.child({ part: 'lightning', node: node.implementation });
    const incoming = new IncomingInvoices(node, app.ledger, log);
    const cancels = new NodeInvoiceCancels(node, app.db, log);
    const outgoing = new OutgoingPayments(node, app.ledger, cancels, app.idempotencyKeys, log, {
      network: app.config.network,
      payWaitMs: config.payWaitMs,
      unknownGraceMs: config.payUnknownGraceMs,
    });
    const addresses = new LightningAddresses(app.db);
    const urls = new PublicUrls(config.publicUrl);

    await app.register(paymentRoutes(incoming, outgoing));
    await app.register(lnurlRoutes({ addresses, incoming, outgoing, urls }));
    await app.register(addressRoutes(addresses, urls));
    await app.register(nodeHealthRoutes(node));

    // Settle what happened while the server was down before taking requests.
    await incoming.start();
    await outgoing.start();
    cancels.start();
    const reconciles = startReconcileTimer(
      reconcileIntervalMs(config, node.watchSettledInvoices !== undefined),
      [
        { what: 'invoice reconcile', run: () => incoming.reconcile() },
        { what: 'payment reconcile', run: () => outgoing.reconcile() },
        { what: 'node invoice cancels', run: () => cancels.retry() },
      ],
      log,
    );
    app.addHook('onClose', async () => {
      outgoing.stop();
      await reconciles.stop();
      await cancels.stop();
      await incoming.stop();
      node.close();
    });
  };
}
