// The Lightning implementations as the lab hands them to its services: NODE_KIND and a connection,
// through the environment, make a client of that implementation again.
import { describe, expect, it } from 'vitest';
import { lightningClientFromEnv, lightningEnv } from '../../lib/lightning/implementations.js';

const lnd = { socket: '127.0.0.1:10009', certBase64: Buffer.from('cert').toString('base64'), macaroonHex: 'abcd' };

describe('lightning implementations', () => {
  it('give each lab service the environment that makes a client of the same implementation', async () => {
    const environments = [
      lightningEnv('lnd', lnd),
      lightningEnv('ldk', { url: 'http://127.0.0.1:3000' }),
      lightningEnv('rln', { url: 'http://127.0.0.1:3001', token: 'secret' }),
    ];
    expect(environments).toEqual([
      { NODE_KIND: 'lnd', LND_GRPC_HOST: lnd.socket, LND_CERT_BASE64: lnd.certBase64, LND_MACAROON_HEX: 'abcd' },
      { NODE_KIND: 'ldk', LDK_URL: 'http://127.0.0.1:3000' },
      { NODE_KIND: 'rln', RLN_URL: 'http://127.0.0.1:3001', RLN_TOKEN: 'secret' },
    ]);
    for (const env of environments) {
      const client = await lightningClientFromEnv(env);
      expect(client.implementation).toBe(env.NODE_KIND);
      client.close();
    }
  });

  it('say what each implementation offers beyond the core', async () => {
    const offers = async (env: Record<string, string>) => {
      const client = await lightningClientFromEnv(env);
      client.close();
      return {
        hold: client.holdInvoices !== undefined,
        cancel: client.cancelInvoice !== undefined,
        stream: client.watchSettledInvoices !== undefined,
        assets: client.assets !== undefined,
        onchainSend: client.sendOnchain !== undefined,
        ...client.capabilities,
      };
    };
    expect(await offers(lightningEnv('lnd', lnd))).toEqual({
      hold: true,
      cancel: true,
      stream: true,
      assets: false,
      onchainSend: true,
      descriptionHash: true,
      keysendPreimage: true,
    });
    expect(await offers(lightningEnv('ldk', { url: 'http://127.0.0.1:3000' }))).toEqual({
      hold: true,
      cancel: true,
      stream: true,
      assets: false,
      onchainSend: false,
      descriptionHash: true,
      keysendPreimage: true,
    });
    expect(await offers(lightningEnv('rln', { url: 'http://127.0.0.1:3001' }))).toEqual({
      hold: false,
      cancel: false,
      stream: false,
      assets: true,
      onchainSend: false,
      descriptionHash: false,
      keysendPreimage: false,
    });
  });

  it('refuse a NODE_KIND that names no implementation, listing those there are', async () => {
    await expect(lightningClientFromEnv({ NODE_KIND: 'eclair' })).rejects.toThrow(
      'NODE_KIND must be lnd, ldk or rln, got "eclair"',
    );
  });
});
