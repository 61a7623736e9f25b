// RLN's Lightning routes. This node is an RGB wallet on rgb-lib, with no Lightning side: what would
// open channels, make or pay Lightning invoices or talk to peers is refused with one clear error
// (400, not a 403 that RLN clients retry), and the listings answer the truth, an empty list.
import type { FastifyInstance } from 'fastify';
import { noLightningSide } from '../rln/errors.js';
import { rlnSchema } from '../rln/http.js';
import type { RgbNode } from '../node/rgb-node.js';

const REFUSED = [
  '/openchannel',
  '/closechannel',
  '/getchannelid',
  '/connectpeer',
  '/disconnectpeer',
  '/lninvoice',
  '/decodelninvoice',
  '/invoicestatus',
  '/sendpayment',
  '/keysend',
  '/getpayment',
  '/makerinit',
  '/makerexecute',
  '/taker',
  '/getswap',
];

const EMPTY_LISTS = [
  { path: '/listchannels', field: 'channels' },
  { path: '/listpeers', field: 'peers' },
  { path: '/listpayments', field: 'payments' },
];

export function lightningRoutes(api: FastifyInstance, node: RgbNode): void {
  for (const path of REFUSED) {
    const summary = 'Refused: this node has no Lightning side (asset channels need RGB Lightning Node)';
    api.post(
      path,
      { schema: rlnSchema({ tag: 'lightning', method: 'POST', summary, ok: { type: 'object' } }) },
      async () => {
        throw noLightningSide(path);
      },
    );
  }
  for (const { path, field } of EMPTY_LISTS) {
    const ok = {
      type: 'object',
      required: [field],
      properties: { [field]: { type: 'array', maxItems: 0, items: { type: 'object' } } },
    };
    api.get(
      path,
      {
        schema: rlnSchema({
          tag: 'lightning',
          method: 'GET',
          summary: `Always empty: this node has no Lightning side`,
          ok,
        }),
      },
      async () => {
        node.unlocked(); // refuses while not unlocked, as RLN does
        return { [field]: [] };
      },
    );
  }
}
