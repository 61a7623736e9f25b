// The faucet as a workshop attendee uses it: a claim for an address, from a machine of its own.
import { call } from './http.js';
import type { AnyStepKind } from './kind.js';
import { object, text } from './schema-parts.js';

const claim: AnyStepKind = {
  name: 'faucet.claim',
  summary:
    'POST /api/claim {address}: coins for the address, mined in a block; client: names the machine the claim comes from (its own IP, for the per-IP cool-down)',
  args: object(
    {
      address: text,
      client: {
        ...text,
        description: 'a simulated client machine; each name has a loopback address of its own for this run',
      },
    },
    ['address'],
  ),
  async run(args: { address: string; client?: string }, context) {
    const base = await context.services.url('faucet');
    return call(`${base}/api/claim`, {
      body: { address: args.address },
      signal: context.signal,
      service: 'faucet',
      localAddress: context.clientAddress(args.client),
    });
  },
};

export const faucetSteps = [claim];
