import { describe, expect, it } from 'vitest';
import { configFromEnv, trustProxyFromEnv } from '../../services/faucet/src/config.js';
import { defaultGatewayIn } from '../../services/faucet/src/default-gateway.js';

const CHAIN = { CHAIN_RPC_URL: 'https://127.0.0.1:18334' };

describe('faucet configuration from env', () => {
  it('has the spec defaults: 100000 sat per claim, 15 minutes cool-down, regtest, direct mining', () => {
    expect(configFromEnv(CHAIN)).toMatchObject({
      host: '127.0.0.1',
      port: 3001,
      claimSat: 100_000,
      cooldownSeconds: 900,
      mineUrl: undefined,
      trustProxy: false,
    });
    expect(
      configFromEnv({ ...CHAIN, CLAIM_SAT: '50000', COOLDOWN_SECONDS: '60', MINE_URL: 'http://cp/labs/x/mine' }),
    ).toMatchObject({ claimSat: 50_000, cooldownSeconds: 60, mineUrl: 'http://cp/labs/x/mine' });
  });

  it('refuses other networks and amounts that are not positive whole numbers', () => {
    expect(() => configFromEnv({ ...CHAIN, NETWORK: 'bitcoin' })).toThrow(/regtest only/);
    expect(() => configFromEnv({ ...CHAIN, CLAIM_SAT: '0' })).toThrow(/CLAIM_SAT must be a positive whole number/);
    expect(() => configFromEnv({ ...CHAIN, COOLDOWN_SECONDS: '1.5' })).toThrow(/COOLDOWN_SECONDS/);
    expect(() => configFromEnv({})).toThrow(/CHAIN_RPC_URL is required/);
  });

  it('reads TRUST_PROXY as off, on, a hop count or a list of proxies', () => {
    expect(trustProxyFromEnv(undefined)).toBe(false);
    expect(trustProxyFromEnv('false')).toBe(false);
    expect(trustProxyFromEnv('true')).toBe(true);
    const hops = trustProxyFromEnv('1') as (address: string, hop: number) => boolean;
    expect([hops('10.0.0.1', 0), hops('10.0.0.2', 1)]).toEqual([true, false]);
    expect(trustProxyFromEnv('10.0.0.1, 192.168.0.0/16')).toEqual(['10.0.0.1', '192.168.0.0/16']);
  });

  it("reads `gateway` in TRUST_PROXY as this machine's default gateway, the host's address as a container sees it", () => {
    expect(trustProxyFromEnv('loopback,gateway', () => '10.89.3.1')).toEqual(['loopback', '10.89.3.1']);
    expect(() => trustProxyFromEnv('gateway', () => undefined)).toThrow(
      'TRUST_PROXY names the gateway, but this machine has no default route',
    );
    // /proc/net/route in a container on a Podman lab network
    const table = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'eth0\t00000000\t0100590A\t0003\t0\t0\t0\t00000000\t0\t0\t0',
      'eth0\t0000590A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
    ].join('\n');
    expect(defaultGatewayIn(table)).toBe('10.89.0.1');
    expect(
      defaultGatewayIn(
        table
          .split('\n')
          .filter((line) => !line.includes('0100590A'))
          .join('\n'),
      ),
    ).toBeUndefined();
  });
});

describe('asset faucet configuration from env', () => {
  const ASSET = { RGB_NODE_URL: 'http://127.0.0.1:3001', ASSET_ID: 'rgb:abc', ASSET_TICKER: 'LAB', ASSET_AMOUNT: '50' };

  it('gives no asset without its variables, and the asset with all four', () => {
    expect(configFromEnv(CHAIN).asset).toBeUndefined();
    expect(configFromEnv({ ...CHAIN, ...ASSET }).asset).toEqual({
      nodeUrl: 'http://127.0.0.1:3001',
      assetId: 'rgb:abc',
      ticker: 'LAB',
      amount: 50,
    });
  });

  it('refuses some of the variables without the others, and an amount that is not a positive whole number', () => {
    expect(() => configFromEnv({ ...CHAIN, RGB_NODE_URL: ASSET.RGB_NODE_URL, ASSET_AMOUNT: '5' })).toThrow(
      'the asset faucet needs RGB_NODE_URL, ASSET_ID, ASSET_TICKER, ASSET_AMOUNT; ASSET_ID, ASSET_TICKER are not set',
    );
    expect(() => configFromEnv({ ...CHAIN, ...ASSET, ASSET_AMOUNT: '0' })).toThrow(
      /ASSET_AMOUNT must be a positive whole number/,
    );
  });
});
