// An archived wallet issues no invoice: what it received could never be spent (an archived wallet
// is not debited, nor reactivated). Neither its owner (POST /payments/invoices) nor anyone through
// its lightning address (the public LNURL-pay callback) gets an invoice of it; each is refused in
// the error shape and records nothing. Over HTTP, against the wallet server of the shared
// default-shaped lab (test/support/shared-lab.ts).
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedLab } from '../support/shared-lab.js';
import { signInToWalletServer, type WalletServerCall } from '../support/wallet-server-user.js';

describe('an archived wallet', () => {
  let base: string;
  let call: WalletServerCall;

  beforeAll(async () => {
    const lab = await sharedLab();
    base = await lab.httpBase('wallet-server');
    call = await signInToWalletServer(async () => base);
  });

  /** A new wallet of the user with a lightning address of its own. */
  async function walletWithAddress(name: string): Promise<{ id: string; username: string }> {
    const created = await call('POST', '/wallets', { name });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const username = `${name}-${randomBytes(4).toString('hex')}`;
    const claimed = await call('PUT', `/wallets/${created.body.id}/lightning-address`, { username });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    return { id: created.body.id, username };
  }

  const payments = async (walletId: string) => (await call('GET', `/wallets/${walletId}/transactions`)).body.items;
  const lnurlPay = (username: string) => fetch(`${base}/lnurlp/${username}/callback?amount=10000`);

  it('gets no invoice, from its owner nor through its lightning address; an active wallet does', async () => {
    const archived = await walletWithAddress('archived');
    const archiving = await call('DELETE', `/wallets/${archived.id}`);
    expect(archiving.body).toMatchObject({ archived: true });

    const own = await call('POST', '/payments/invoices', { amount_msat: 10_000 }, archived.id);
    expect(own.status, JSON.stringify(own.body)).toBe(400);
    expect(own.body.error).toMatchObject({ code: 'WALLET_ARCHIVED', message: expect.stringContaining(archived.id) });

    const outsider = await lnurlPay(archived.username);
    expect(outsider.status).toBe(400);
    expect(await outsider.json()).toMatchObject({
      status: 'ERROR',
      error: { code: 'WALLET_ARCHIVED', message: expect.stringContaining('archived') },
    });
    expect(await payments(archived.id)).toEqual([]);

    const active = await walletWithAddress('active');
    const paid = await lnurlPay(active.username);
    expect(paid.status).toBe(200);
    expect((await paid.json()).pr).toMatch(/^lnbcrt/);
    expect(await payments(active.id)).toMatchObject([{ direction: 'in', status: 'pending', amount_msat: '10000' }]);
  });
});
