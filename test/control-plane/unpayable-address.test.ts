// Mining or funding to an address the lab's wallets cannot pay is refused before anything is queued:
// a valid bech32m address of witness version 2 to 16 (or a version 1 program that is not taproot's)
// is a 400 INVALID_ADDRESS, not a queued job that btcd or the lab wallet then fails. On the shared
// default-shaped lab (test/support/shared-lab.ts), which these requests leave as it was.
import { address } from 'bitcoinjs-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';

describe('an address the lab cannot pay, given to mine or fund', () => {
  let lab: SharedLab;
  beforeAll(async () => {
    lab = await sharedLab();
  });

  it('is refused before any job is queued', async () => {
    const unpayable = [
      address.toBech32(Buffer.alloc(32, 1), 2, 'bcrt'),
      address.toBech32(Buffer.from([0x4e, 0x73]), 1, 'bcrt'),
    ];
    for (const to of unpayable) {
      for (const [path, body] of [
        ['mine', { blocks: 1, address: to }],
        ['fund', { address: to, amount_sat: 100_000 }],
      ] as const) {
        const answer = await lab.call('POST', `/labs/${lab.name}/${path}`, body);
        expect(answer, `${path} to ${to}`).toMatchObject({
          status: 400,
          body: { error: { code: 'INVALID_ADDRESS', message: expect.stringContaining('cannot pay') } },
        });
      }
    }
    const spaced = await lab.call('POST', `/labs/${lab.name}/mine`, {
      blocks: 1,
      address: ` ${address.toBech32(Buffer.alloc(20, 1), 0, 'bcrt')}`,
    });
    expect(spaced).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ADDRESS' } } });
  });
});
