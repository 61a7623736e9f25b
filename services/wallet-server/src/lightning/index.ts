// The Lightning side of the wallet server as one Fastify plugin: invoices, pay, keysend, LNURL,
// lightning addresses, node health. See CONTRACT.md and docs/wallet-server.md.
import type { FastifyInstance } from 'fastify';
import { addressRoutes } from './address-routes.js';
import { LightningAddresses } from './addresses.js';
import type { LightningConfig } from './config.js';
import type { NodeGateway } from './gateway.js';
import { IncomingInvoices } from './incoming.js';
import { NodeInvoiceCancels } from './invoice-cancels.js';
import { lnurlRoutes } from './lnurl-routes.js';
import { nodeHealthRoutes } from './node-health.js';
import { OutgoingPayments } from './outgoing.js';
import { paymentRoutes } from './payment-routes.js';
import { PublicUrls } from './public-url.js';
import { startReconcileTimer } from './reconcile-timer.js';

export { loadLightningConfig, type LightningConfig } from './config.js';
export { gatewayFromEnv } from './node.js';
export type { NodeGateway } from './gateway.js';

/** The plugin owns the gateway: it closes it with the app. */
export function lightningPlugin(config: LightningConfig, gateway: NodeGateway) {
  return async function lightning(app: FastifyInstance): Promise<void> {
    const log = app.log.child({ part: 'lightning', node: gateway.kind });
    const incoming = new IncomingInvoices(gateway, app.ledger, log);
    const cancels = new NodeInvoiceCancels(gateway, app.db, log);
    const outgoing = new OutgoingPayments(gateway, app.ledger, cancels, app.idempotencyKeys, log, {
      network: app.config.network,
      payWaitMs: config.payWaitMs,
      unknownGraceMs: config.payUnknownGraceMs,
    });
    const addresses = new LightningAddresses(app.db);
    const urls = new PublicUrls(config.publicUrl);

    await app.register(paymentRoutes(incoming, outgoing));
    await app.register(lnurlRoutes({ addresses, incoming, outgoing, urls }));
    await app.register(addressRoutes(addresses, urls));
    await app.register(nodeHealthRoutes(gateway));

    // Settle what happened while the server was down before taking requests.
    await incoming.start();
    await outgoing.start();
    cancels.start();
    const reconciles = startReconcileTimer(
      config.reconcileMs,
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
      await gateway.close();
    });
  };
}
