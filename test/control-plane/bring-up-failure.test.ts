// A lab service that cannot start, while the nodes are funded and their channels opened (the lab
// services start then): the lab fails naming it once the channels are made, and the
// control plane goes on serving.
// Its own lab: one that fails to come up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';

const LAB = 'nodb';
/** A wallet server on alice whose Postgres (outside the lab) does not answer; the lab has a channel to open. */
const YAML = `name: ${LAB}
nodes:
  - name: alice
    kind: lnd
    funding_sat: 2000000
  - name: bob
    kind: lnd
channels:
  - from: alice
    to: bob
    capacity_sat: 1000000
postgres:
  url: postgres://reglab@127.0.0.1:1/nowhere
services:
  wallet-server:
    node: alice
`;

describe('a lab service that cannot start during the bring-up', () => {
  let cp: TestControlPlane;

  beforeAll(async () => {
    cp = await startTestControlPlane();
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('fails the lab with the service named and its reason, and the control plane carries on', async () => {
    expect((await cp.call('POST', '/labs', { yaml: YAML })).status).toBe(202);
    const lab = await waitFor(
      async () => {
        const { body } = await cp.call('GET', `/labs/${LAB}`);
        return body.status !== 'starting' && body;
      },
      { timeoutMs: 180_000, what: 'the bring-up to end' },
    );
    expect(lab.status).toBe('failed');
    expect(lab.error).toContain('wallet-server did not start');
    const walletServer = lab.services.find((service: { name: string }) => service.name === 'wallet-server');
    expect(walletServer.status).toBe('failed');
    // the nodes were funded and the channel opened meanwhile: the failure waited for them
    expect(lab.phases.map((phase: { name: string }) => phase.name)).toEqual(
      expect.arrayContaining(['nodes', 'funding', 'channels']),
    );
    expect((await cp.call('GET', '/labs')).status).toBe(200);
  });
});
