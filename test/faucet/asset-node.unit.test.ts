// How the asset faucet tells its node's refusals of a send apart: a proxy the node cannot reach is the
// lab's failure (502 SEND_FAILED, saying the invoice is not at fault), whether the node is the lab's
// rgb node (503 NoValidTransportEndpoint) or RLN (400 with rgb-lib's words); a refused invoice is
// the user's (400 INVALID_INVOICE); an empty node is 503 FAUCET_EMPTY.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../lib/errors.js';
import { RlnError, type RlnClient } from '../../lib/rln/client.js';
import { FaucetAssetNode } from '../../services/faucet/src/asset-node.js';

const PROXY = 'rpc://127.0.0.1:3000/json-rpc';
const REQUEST = { recipientId: 'bcrt:utxob:abc', witness: false, amount: 50, transportEndpoints: [PROXY] };

async function donationRefusedWith(refusal: RlnError): Promise<DomainError> {
  const client = { url: 'http://127.0.0.1:3001', sendRgb: () => Promise.reject(refusal) } as unknown as RlnClient;
  const error = await new FaucetAssetNode(client).donate('rgb:lab', REQUEST).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe("the asset faucet's send", () => {
  it("is the lab's failure when the node reaches no proxy of the invoice, as the lab's rgb node or RLN says it", async () => {
    for (const refusal of [
      new RlnError(
        '/sendrgb',
        503,
        'No valid transport endpoint found: no transport endpoint of the recipients answered as an RGB consignment proxy (protocol 0.2): the proxy is down or this node cannot reach it',
        'NoValidTransportEndpoint',
      ),
      new RlnError('/sendrgb', 400, 'Invalid transport endpoints: no valid transport endpoints'),
    ]) {
      const error = await donationRefusedWith(refusal);
      expect({ kind: error.kind, code: error.code }).toEqual({ kind: 'upstream', code: 'SEND_FAILED' });
      expect(error.message).toBe(
        `the faucet's node cannot reach the consignment proxy the invoice names (${PROXY}): it is down, or out of the node's reach. Your invoice is not at fault: nothing was sent and your cool-down is released; claim again once the proxy answers (reglab status shows the lab's)`,
      );
    }
  });

  it("is the invoice's fault when the node refuses it as bad input, and an empty faucet when the node cannot pay", async () => {
    const refused = await donationRefusedWith(
      new RlnError('/sendrgb', 400, 'Invalid recipient ID', 'InvalidRecipientID'),
    );
    expect({ kind: refused.kind, code: refused.code }).toEqual({ kind: 'invalid', code: 'INVALID_INVOICE' });
    const empty = await donationRefusedWith(new RlnError('/sendrgb', 403, 'Not enough assets', 'InsufficientAssets'));
    expect({ kind: empty.kind, code: empty.code }).toEqual({ kind: 'unavailable', code: 'FAUCET_EMPTY' });
  });
});
