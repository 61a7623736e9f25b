// Its own lab: the bring-up and the tear-down are what it checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { getChannels, getPeers } from 'ln-service';
import { isListening } from '../../control-plane/src/util/ports.js';
import { isRunning } from '../../control-plane/src/runtimes/process/child.js';
import { mineBlocks, payBetween, fund } from '../../control-plane/src/lab/operations.js';
import { electrumTipHeight } from '../../control-plane/src/nodes/indexer/electrum.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

describe('a lab of btcd, its indexer and three lnd nodes in a line', () => {
  let regtest: Regtest;
  let atReady: { chain: number; indexer: number };
  beforeAll(async () => {
    regtest = await startRegtest({
      lnd: ['alice', 'bob', 'carol'],
      channels: [
        { from: 'alice', to: 'bob', capacity_sat: 1_000_000 },
        { from: 'bob', to: 'carol', capacity_sat: 1_000_000 },
      ],
      indexer: true,
    });
    // read together, the moment the lab is reported ready
    const [chain, indexer] = await Promise.all([
      regtest.chain.getBlockCount(),
      electrumTipHeight(regtest.address('indexer', 'electrum')),
    ]);
    atReady = { chain, indexer };
  });
  afterAll(async () => {
    await regtest?.stop();
  });

  it('activated segwit and reported each service as ready', async () => {
    expect(await regtest.chain.getBlockCount()).toBeGreaterThanOrEqual(432 + 1 + 6);
    const ready = regtest.events
      .filter((event) => event.type === 'service' && event.status === 'ready')
      .map((event) => event.type === 'service' && event.service);
    expect(ready).toEqual(expect.arrayContaining(['chain', 'alice', 'bob', 'carol']));
  });

  it("serves the chain's newest block over Electrum once ready (the channels' blocks included)", () => {
    expect(atReady.chain).toBeGreaterThanOrEqual(432 + 1 + 6);
    expect(atReady.indexer).toBe(atReady.chain);
  });

  it('opened the declared channels, active on both sides', async () => {
    const { channels } = await getChannels({ lnd: regtest.lnd('bob'), is_active: true });
    expect(channels).toHaveLength(2);
  });

  it('without network faults, puts no proxy in the way: no Toxiproxy, and lnd dials btcd and its peers at their own ports', async () => {
    const services = regtest.lab.services;
    expect(Object.values(services).map((service) => service.kind)).not.toContain('toxiproxy');
    expect(regtest.lab.network).toBeUndefined();
    const inLab = (pid: string) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(regtest.lab.dir);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    };
    const programs = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry) && inLab(entry))
      .map((pid) => basename(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]));
    expect(programs).toContain('lnd');
    expect(programs).not.toContain('toxiproxy-server');
    const alice = services.alice.handle!;
    const args = readFileSync(`/proc/${alice.runtime === 'process' ? alice.pid : 0}/cmdline`, 'utf8').split('\0');
    expect(args).toContain(`--btcd.rpchost=127.0.0.1:${services.chain.hostPorts.rpc}`);
    const { peers } = await getPeers({ lnd: regtest.lnd('alice') });
    expect(peers.find((peer) => peer.public_key === services.bob.info.pubkey)?.socket).toBe(
      `127.0.0.1:${services.bob.hostPorts.p2p}`,
    );
  });

  it('pays alice -> carol over bob', async () => {
    const payment = await payBetween(regtest.session, { from: 'alice', to: 'carol', amountSat: 5_000 });
    expect(payment.amountSat).toBe(5_000);
    expect(payment.hops).toBe(2);
  });

  it('mines exactly the blocks asked for, to the lab wallet or to any address', async () => {
    const before = await regtest.chain.getBlockCount();
    await mineBlocks(regtest.session, 3);
    const { height } = await mineBlocks(regtest.session, 2, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    expect(height).toBe(before + 5);
  });

  it('funds any address from the lab wallet and confirms it', async () => {
    const result = await fund(regtest.session, {
      address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
      amountSat: 123_456n,
    });
    const tx = await regtest.chain.call<{ vout: { value: number }[]; confirmations: number }>('getrawtransaction', [
      result.txid,
      1,
    ]);
    expect(tx.confirmations).toBe(1);
    expect(tx.vout.map((out) => Math.round(out.value * 1e8))).toContain(123_456);
  });

  it('leaves no process and no port after tear-down', async () => {
    const pids = Object.values(regtest.lab.services).map((service) =>
      service.handle?.runtime === 'process' ? service.handle.pid : 0,
    );
    const ports = Object.values(regtest.lab.services).flatMap((service) => Object.values(service.hostPorts));
    await regtest.stop();
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
    for (const port of ports) expect(await isListening(port)).toBe(false);
  });
});
