// The URIs `reglab connect-info` prints (control-plane/src/connect): lndconnect, as its readers
// decode it, and LNURL, against LUD-01's own example.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bech32 } from 'bech32';
import { describe, expect, it } from 'vitest';
import { lndconnectUri } from '../../control-plane/src/connect/lndconnect.js';
import { encodeLnurl } from '../../control-plane/src/connect/lnurl.js';

/** A self-signed certificate, as lnd makes its own. */
function selfSignedPem(): string {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=alice',
        '-days',
        '1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return readFileSync(join(dir, 'cert.pem'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('lndconnect URIs', () => {
  it('carry host and port, the DER certificate and the macaroon, base64url without padding', () => {
    const pem = selfSignedPem();
    const macaroonHex = '0201036c6e6402f801030a10';
    const uri = lndconnectUri('127.0.0.1:10009', pem, macaroonHex);
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('lndconnect:');
    expect(parsed.host).toBe('127.0.0.1:10009');
    const cert = parsed.searchParams.get('cert')!;
    const macaroon = parsed.searchParams.get('macaroon')!;
    expect(cert).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(macaroon).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(cert, 'base64url')).toEqual(new X509Certificate(pem).raw);
    expect(Buffer.from(macaroon, 'base64url').toString('hex')).toBe(macaroonHex);
  });
});

describe('LNURL', () => {
  it("encodes LUD-01's example URL as LUD-01 gives it", () => {
    const url = 'https://service.com/api?q=3fc3645b439ce8e7f2553a69e5267081d96dcd340693afabe04be7b0ccd178df';
    expect(encodeLnurl(url)).toBe(
      'LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS',
    );
  });

  it('decodes back to the URL, past bech32 addresses’ 90 characters', () => {
    const url = 'http://127.0.0.1:41234/.well-known/lnurlp/a-rather-long-username-for-a-lightning-address';
    const { prefix, words } = bech32.decode(encodeLnurl(url).toLowerCase(), 1023);
    expect(prefix).toBe('lnurl');
    expect(Buffer.from(bech32.fromWords(words)).toString('utf8')).toBe(url);
  });
});
