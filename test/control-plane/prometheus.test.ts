// The metrics of the control plane and of the lab services, scraped by a real Prometheus
// (Debian's, as a user's would): the control plane statically, the lab services through the
// control plane's HTTP service discovery, each series labelled with its lab. Payments, a failed
// one, a faucet claim, an invoice of the wallet server and a chain-adapter request are made, and
// Prometheus is asked until it holds them. On the shared default-shaped lab
// (test/support/shared-lab.ts): it pays over its channels and uses its services; every figure is
// compared with what it was before this file acted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPrivateKeyHex, regtestKey } from '../../control-plane/src/wallet/keys.js';
import { startPrometheus, type RunningPrometheus } from '../support/prometheus.js';
import { sampleValue } from '../support/prometheus-text.js';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';
import { signInToWalletServer } from '../support/wallet-server-user.js';

describe('metrics scraped by Prometheus', () => {
  let lab: SharedLab;
  let prometheus: RunningPrometheus;
  let LAB: string;
  /** The control plane's own figures before this file acted. */
  let before: string;
  const controlPlaneMetric = (name: string, labels: Record<string, string>) => sampleValue(before, name, labels) ?? 0;

  beforeAll(async () => {
    lab = await sharedLab();
    LAB = lab.name;
    before = (await lab.call('GET', '/metrics')).body;
    const controlPlane = new URL(lab.url).host;
    prometheus = await startPrometheus(
      [
        '  - job_name: reglab-control-plane',
        '    static_configs:',
        `      - targets: ['${controlPlane}']`,
        '  - job_name: reglab-lab-services',
        '    http_sd_configs:',
        `      - url: http://${controlPlane}/metrics/targets`,
        '        refresh_interval: 2s',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await prometheus?.stop();
  });

  it('counts payments by outcome with their durations, and failures by reason', async () => {
    const paid = await lab.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 2_000,
    });
    expect(paid.body.state).toBe('completed');
    const failed = await lab.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 9_000_000,
    });
    expect(failed.body.state).toBe('failed');

    const succeeded = controlPlaneMetric('reglab_payments_total', { lab: LAB, outcome: 'succeeded' });
    await prometheus.waitFor(
      `reglab_payments_total{lab="${LAB}",outcome="succeeded"}`,
      (value) => value >= succeeded + 1,
      'the payment that succeeded',
    );
    const failures = controlPlaneMetric('reglab_payments_total', { lab: LAB, outcome: 'failed' });
    await prometheus.waitFor(
      `reglab_payments_total{lab="${LAB}",outcome="failed"}`,
      (value) => value >= failures + 1,
      'the payment that failed',
    );
    const byReason = await prometheus.waitFor(
      `sum(reglab_payment_failures_total{lab="${LAB}"})`,
      (value) => value >= failures + 1,
      'the failure by its reason',
    );
    expect(byReason).toBeGreaterThanOrEqual(1);
    await prometheus.waitFor(
      `reglab_payment_duration_seconds_count{lab="${LAB}",outcome="succeeded"}`,
      (value) => value >= succeeded + 1,
      'the duration of the payment',
    );
    await prometheus.waitFor(
      `reglab_payment_amount_sat_total{lab="${LAB}"}`,
      (value) => value >= controlPlaneMetric('reglab_payment_amount_sat_total', { lab: LAB }) + 2_000,
      'the amount paid',
    );
  });

  it("reads the lab's height, services, jobs and each node's channel sides", async () => {
    const { body } = await lab.call('GET', `/labs/${LAB}`);
    await prometheus.waitFor(
      `reglab_chain_height{lab="${LAB}"}`,
      (value) => value >= body.chain.height,
      'the chain height',
    );
    await prometheus.waitFor(
      `reglab_service_ready{lab="${LAB}",service="alice"}`,
      (value) => value === 1,
      'alice ready',
    );
    await prometheus.waitFor(
      `sum(reglab_service_restarts_total{lab="${LAB}"})`,
      (value) => value >= 0,
      'the restarts of the services',
    );
    const alice = body.nodes.find((node: { name: string }) => node.name === 'alice');
    const local = await prometheus.waitFor(
      `reglab_channel_local_sat{lab="${LAB}",node="alice",partner="bob"}`,
      (value) => value > 0,
      "alice's side of her channel with bob",
    );
    const remote = await prometheus.value(`reglab_channel_remote_sat{lab="${LAB}",node="alice",partner="bob"}`);
    // the two sides and the reserve for fees make up the capacity
    expect(local + remote!).toBeLessThanOrEqual(alice.channels[0].capacitySat);
    expect(local + remote!).toBeGreaterThan(alice.channels[0].capacitySat * 0.99);
    await prometheus.waitFor(
      `sum(reglab_jobs_total{lab="${LAB}",queue="payments"})`,
      (value) => value >= 2,
      'the payment jobs',
    );
    await prometheus.waitFor(
      'sum(reglab_queue_jobs{queue="payments"})',
      (value) => value >= 2,
      'the queue of payments',
    );
  });

  it('scrapes the lab services the control plane lists, labelled with their lab and service', async () => {
    for (const service of ['wallet-server', 'faucet', 'chain-adapter'])
      await prometheus.waitFor(
        `up{job="reglab-lab-services",lab="${LAB}",service="${service}"}`,
        (value) => value === 1,
        `${service} scraped`,
      );

    const adapter = await lab.httpBase('chain-adapter');
    expect((await fetch(`${adapter}/api/blocks/tip/height`)).status).toBe(200);
    await prometheus.waitFor(
      `http_request_duration_seconds_count{lab="${LAB}",service="chain-adapter",route="/api/blocks/tip/height",status_code="200"}`,
      (value) => value >= 1,
      "the chain adapter's request",
    );

    const faucet = await lab.httpBase('faucet');
    const claim = await fetch(`${faucet}/api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: regtestKey(newPrivateKeyHex()).address }),
    });
    // another file of the run may have claimed from this machine within the cool-down: that is counted too
    const outcome = claim.ok ? 'sent' : ((await claim.json()) as { error: { code: string } }).error.code;
    await prometheus.waitFor(
      `faucet_claims_total{lab="${LAB}",service="faucet",claim="btc",outcome="${outcome}"}`,
      (value) => value >= 1,
      `the faucet's claim, ${outcome}`,
    );

    const walletServer = await lab.httpBase('wallet-server');
    const user = await signInToWalletServer(async () => walletServer);
    const wallet = (await user('POST', '/wallets', { name: 'metrics' })).body.id as string;
    const invoice = (await user('POST', '/payments/invoices', { amount_msat: 1_000_000 }, wallet)).body;
    // the wallet server's node is alice: bob pays, given first more than the reserve of his side towards her
    const liquidity = await lab.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'bob',
      amount_sat: 100_000,
    });
    expect(liquidity.body.state, JSON.stringify(liquidity.body)).toBe('completed');
    const paid = await lab.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'bob',
      invoice: invoice.payment_request,
    });
    expect(paid.body.state, JSON.stringify(paid.body)).toBe('completed');
    await prometheus.waitFor(
      `sum(wallet_server_payments{lab="${LAB}",direction="in",status="succeeded"})`,
      (value) => value >= 1,
      "the wallet server's incoming payment",
    );
    await prometheus.waitFor(
      `wallet_server_balances{lab="${LAB}",asset="btc"}`,
      (value) => value >= 1_000_000,
      "the wallets' balances",
    );
    await prometheus.waitFor(
      `wallet_server_ledger_entries{lab="${LAB}",reason="credit"}`,
      (value) => value >= 1,
      "the ledger's credit",
    );
  });
});
