// `reglab connect-info`: what a wallet app takes to reach a node or the wallet server, used as such
// an app uses it: alice's lndconnect URI parsed back and given to ln-service, the wallet server's
// LNURL of a claimed username decoded and fetched. On the shared default-shaped lab
// (test/support/shared-lab.ts): it reads the lab and claims a username on its wallet server.
import { createRequire } from 'node:module';
import { bech32 } from 'bech32';
import { beforeAll, describe, expect, it } from 'vitest';
import { reglabOf, type CliResult } from '../support/cli.js';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';
import { signInToWalletServer } from '../support/wallet-server-user.js';

/** ln-service as a wallet app loads it, not through lib/lightning. */
const lnService = createRequire(import.meta.url)('ln-service') as {
  authenticatedLndGrpc(options: { cert: string; macaroon: string; socket: string }): { lnd: unknown };
  getWalletInfo(options: { lnd: unknown }): Promise<{ public_key: string; alias: string }>;
};

/** An lndconnect URI read back as its readers do: the DER certificate as PEM again. */
function parseLndconnect(uri: string): { socket: string; certPem: string; macaroonHex: string } {
  const url = new URL(uri);
  expect(url.protocol).toBe('lndconnect:');
  const der = Buffer.from(url.searchParams.get('cert')!, 'base64url').toString('base64');
  const lines = der.match(/.{1,64}/g)!.join('\n');
  return {
    socket: url.host,
    certPem: `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`,
    macaroonHex: Buffer.from(url.searchParams.get('macaroon')!, 'base64url').toString('hex'),
  };
}

const json = (result: CliResult) => {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

describe('reglab connect-info', () => {
  let lab: SharedLab;
  let reglab: (...args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    lab = await sharedLab();
    reglab = (...args) => reglabOf(lab.home, '--lab', lab.name, ...args);
  });

  it("gives lnd's lndconnect URI, with which ln-service reaches the node", async () => {
    const info = json(await reglab('connect-info', 'alice', '--json'));
    const pubkey = (await lab.info('alice')).pubkey;
    expect(info).toMatchObject({ service: 'alice', kind: 'lnd' });
    expect(info.uris.nodeUri).toMatch(new RegExp(`^${pubkey}@127\\.0\\.0\\.1:\\d+$`));
    for (const name of ['lndconnect', 'lndconnectRest']) {
      const { socket, certPem, macaroonHex } = parseLndconnect(info.uris[name]);
      expect(socket).toMatch(/^127\.0\.0\.1:\d+$/);
      if (name === 'lndconnectRest') continue; // ln-service speaks gRPC
      const { lnd } = lnService.authenticatedLndGrpc({
        cert: Buffer.from(certPem).toString('base64'),
        macaroon: macaroonHex,
        socket,
      });
      const wallet = await lnService.getWalletInfo({ lnd });
      expect(wallet.public_key).toBe(pubkey);
      expect(wallet.alias).toBe('alice');
    }
    const human = await reglab('connect-info', 'alice');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('alice (lnd)');
    expect(human.stdout).toMatch(/lndconnectRest +lndconnect:\/\/127\.0\.0\.1:\d+\?cert=/);
  });

  it("gives the wallet server's API, and a claimed username's LNURL-pay, which answers its payRequest", async () => {
    const base = await lab.httpBase('wallet-server');
    const user = await signInToWalletServer(async () => base);
    const wallet = (await user('POST', '/wallets', { name: 'connect-info' })).body.id as string;
    const username = `ci${Date.now().toString(36)}`;
    const claimed = await user('PUT', `/wallets/${wallet}/lightning-address`, { username });
    expect(claimed.status).toBe(200);

    const info = json(await reglab('connect-info', 'wallet-server', '--user', username, '--json'));
    expect(info.uris).toMatchObject({ api: base, openapi: `${base}/openapi.json` });
    expect(info.uris.lightningAddress).toBe(claimed.body.lightning_address);
    const { prefix, words } = bech32.decode(info.uris.lnurl.toLowerCase(), 1023);
    expect(prefix).toBe('lnurl');
    const url = Buffer.from(bech32.fromWords(words)).toString('utf8');
    expect(url).toBe(`${base}/.well-known/lnurlp/${username}`);
    const payRequest = await (await fetch(url)).json();
    expect(payRequest).toMatchObject({ tag: 'payRequest', callback: `${base}/lnurlp/${username}/callback` });

    const withoutUser = json(await reglab('connect-info', 'wallet-server', '--json'));
    expect(withoutUser.uris).toEqual({ api: base, openapi: `${base}/openapi.json` });
  });

  it('refuses a service it covers not, a username not claimed and one LNURL cannot name, in words', async () => {
    const chain = await reglab('connect-info', 'chain');
    expect(chain.code).toBe(2);
    expect(chain.stderr).toContain('chain is a btcd: connect-info covers lnd and ldk nodes and the wallet server');
    const unclaimed = await reglab('connect-info', 'wallet-server', '--user', 'nobody-has-this-name', '--json');
    expect(unclaimed.code).toBe(3);
    expect(JSON.parse(unclaimed.stdout).error).toMatchObject({ code: 'NO_SUCH_USERNAME' });
    const badName = await reglab('connect-info', 'wallet-server', '--user', 'Not A Name');
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('querystring/user must match pattern');
    const missing = await reglab('connect-info', 'dave');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('has no service "dave"');
  });
});
