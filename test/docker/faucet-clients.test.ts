// The faucet's client addresses on the docker runtime. Podman rewrites the source of every connection
// that reaches a port published on 127.0.0.1 to the lab network's gateway, so every client on this
// machine looks like one; the lab's faucet believes X-Forwarded-For from that gateway (this machine's
// connections), and only from there: a reverse proxy on this machine passes its clients through, and
// the per-IP cool-down keys on them.
import { randomBytes } from 'node:crypto';
import { networks, payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engine, labLeftovers, startDockerLab, uniqueLab, type DockerLab } from './support.js';

const newAddress = () => payments.p2wpkh({ hash: randomBytes(20), network: networks.regtest }).address!;

describe("the docker lab's faucet and its clients' addresses", () => {
  let running: DockerLab;
  let faucetUrl: string;
  let gateway: string;

  const claim = async (forwardedFor?: string) => {
    const response = await fetch(`${faucetUrl}/api/claim`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
      body: JSON.stringify({ address: newAddress() }),
    });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    running = await startDockerLab({
      name: uniqueLab('fct'),
      indexer: { enabled: false },
      nodes: [{ name: 'alice', kind: 'lnd', funding_sat: 5_000_000 }],
      services: { faucet: { node: 'alice' } },
    });
    faucetUrl = `http://${running.session.host.reach('faucet', 'http')}`;
    const docker = await engine();
    const network = await docker.getNetwork(`reglab-${running.lab.name}`).inspect();
    gateway = network.IPAM?.Config?.[0]?.Gateway ?? '';
  });

  afterAll(async () => {
    const name = running?.lab.name;
    await running?.stop();
    if (name) expect(await labLeftovers(await engine(), name)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it("sees every client of this machine as the lab network's gateway: they share one IP cool-down", async () => {
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.1$/);
    expect((await claim()).status).toBe(200);
    const second = await claim();
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ code: 'COOLDOWN', blocked_by: ['ip'] });
    expect(second.body.error.message).toContain(`your IP ${gateway}`);
  });

  it("takes the client's address from X-Forwarded-For sent by this machine (a reverse proxy on it)", async () => {
    expect((await claim('198.51.100.7')).status).toBe(200);
    const again = await claim('198.51.100.7');
    expect(again.status).toBe(429);
    expect(again.body.error.message).toContain('your IP 198.51.100.7');
    // two hops: the one the proxy on this machine saw is the client; what came before is the client's own word
    expect((await claim('203.0.113.9, 198.51.100.8')).status).toBe(200);
    expect((await claim('198.51.100.8')).status).toBe(429);
  });
});
