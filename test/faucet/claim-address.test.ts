// Addresses the faucet cannot pay are the claimer's input, refused as such: a valid bech32m address
// of a witness version other than 0 and 1 (taproot), or a version 1 program that is not 32 bytes,
// is a 400 INVALID_ADDRESS saying which addresses the faucet pays, not a 502 that blames the lab
// (lnd's wallet cannot send to them); and it sends nothing. On the shared default-shaped lab's faucet
// (test/support/shared-lab.ts).
import { address } from 'bitcoinjs-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLab } from '../support/shared-lab.js';

describe('a claim to an address the faucet cannot pay', () => {
  let base: string;
  beforeAll(async () => {
    base = await (await sharedLab()).httpBase('faucet');
  });

  const claim = async (to: string) => {
    const response = await fetch(`${base}/api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: to }),
    });
    return { status: response.status, body: await response.json() };
  };

  it('is refused as the claimer’s input, whatever its witness version', async () => {
    const unpayable = [
      address.toBech32(Buffer.alloc(32, 1), 2, 'bcrt'),
      address.toBech32(Buffer.alloc(40, 7), 16, 'bcrt'),
      address.toBech32(Buffer.from([0x4e, 0x73]), 1, 'bcrt'),
    ];
    for (const to of unpayable) {
      const answer = await claim(to);
      expect(answer, to).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_ADDRESS', message: expect.stringContaining('bcrt1q... or bcrt1p...') } },
      });
    }
  });
});
