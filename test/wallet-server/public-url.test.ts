import { describe, expect, test } from 'vitest';
import { loadLightningConfig } from '../../services/wallet-server/src/lightning/config.js';
import { PublicUrls } from '../../services/wallet-server/src/lightning/public-url.js';

const urlsOf = (env: Record<string, string>) => new PublicUrls(loadLightningConfig(env).publicUrl);

describe('PUBLIC_URL: the base of the lightning address, the LNURL links and callbacks', () => {
  test('a default port for the scheme is left out of the address and the links', () => {
    for (const publicUrl of ['https://pay.example.com', 'https://pay.example.com:443/', 'http://pay.example.com:80']) {
      const urls = urlsOf({ PUBLIC_URL: publicUrl });
      expect(urls.address('alice'), publicUrl).toBe('alice@pay.example.com');
      expect(urls.payCallback('alice')).toMatch(/^https?:\/\/pay\.example\.com\/lnurlp\/alice\/callback$/);
    }
    const urls = urlsOf({ PUBLIC_URL: 'https://pay.example.com/' });
    expect(urls.lnurlp('alice')).toBe('https://pay.example.com/.well-known/lnurlp/alice');
    expect(urls.lnurlw('alice')).toBe('https://pay.example.com/lnurlw/alice');
    expect(urls.withdrawCallback('alice')).toBe('https://pay.example.com/lnurlw/alice/callback');
    expect(JSON.parse(urls.payMetadata('alice'))).toEqual([
      ['text/plain', 'Payment to alice@pay.example.com'],
      ['text/identifier', 'alice@pay.example.com'],
    ]);
  });

  test('a non-default port stays in the address (user@host:port) and the links; unset is http://HOST:PORT', () => {
    expect(urlsOf({ PUBLIC_URL: 'http://192.168.1.20:8080' }).address('bob')).toBe('bob@192.168.1.20:8080');
    expect(urlsOf({ PUBLIC_URL: 'https://pay.example.com:8443' }).payCallback('bob')).toBe(
      'https://pay.example.com:8443/lnurlp/bob/callback',
    );
    const unset = urlsOf({ HOST: '127.0.0.1', PORT: '42187' });
    expect(unset.address('bob')).toBe('bob@127.0.0.1:42187');
  });

  test('anything but scheme://host[:port] is refused at start-up, naming PUBLIC_URL', () => {
    for (const bad of [
      'wallet.test',
      'ftp://wallet.test',
      'https://wallet.test/wallet',
      'https://wallet.test/?a=1',
      'https://wallet.test/#x',
      'https://user:pw@wallet.test',
    ]) {
      expect(() => loadLightningConfig({ PUBLIC_URL: bad }), bad).toThrow(/^PUBLIC_URL/);
    }
  });
});
