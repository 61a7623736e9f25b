import { readBolt11, type Bolt11 } from '../../../../lib/lightning/bolt11.js';
import type { Network } from '../config.js';
import { invalid } from '../errors.js';
import { BOLT11_PREFIX } from './rules.js';

/** Decodes a BOLT11 invoice and checks it is for this server's network; 400 otherwise. */
export function decodeBolt11(invoice: string, network: Network): Omit<Bolt11, 'networkPrefix'> {
  const { networkPrefix, ...bolt11 } = readBolt11(invoice);
  if (networkPrefix !== BOLT11_PREFIX[network]) {
    throw invalid(
      'WRONG_NETWORK',
      `the invoice is for network "${networkPrefix}", this server runs on ${network} ("${BOLT11_PREFIX[network]}")`,
    );
  }
  return bolt11;
}
