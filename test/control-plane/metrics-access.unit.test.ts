// Who reaches what on a control plane open to the network (a workshop, with a token): a Prometheus
// holding no secret scrapes /metrics and /metrics/targets; connect-info, which carries credentials,
// needs the token like the credentials route. With metrics off, neither route is served.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildControlPlaneApp } from '../../control-plane/src/api/app.js';
import { JobQueues } from '../../control-plane/src/jobs.js';
import { LabManager } from '../../control-plane/src/manager.js';
import { StateStore } from '../../control-plane/src/store.js';

describe('metrics and connect-info on a control plane with a token', () => {
  const opened: { app: FastifyInstance; home: string }[] = [];
  const controlPlane = async (metrics?: boolean) => {
    const home = mkdtempSync(join(tmpdir(), 'reglab-metrics-access-'));
    const manager = new LabManager(new StateStore(home), () => undefined);
    const jobs = new JobQueues(
      async () => {
        throw new Error('no queue is opened here');
      },
      (lab) => manager.session(lab),
      () => undefined,
      true,
    );
    const app = await buildControlPlaneApp({ manager, jobs, token: 'the-token', metrics, shutdown: () => undefined });
    opened.push({ app, home });
    return app;
  };
  afterEach(async () => {
    for (const { app, home } of opened.splice(0)) {
      await app.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('serves metrics and scrape targets without the token, and asks it for connect-info', async () => {
    const app = await controlPlane();
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('# TYPE reglab_payments_total counter');
    const targets = await app.inject({ method: 'GET', url: '/metrics/targets' });
    expect(targets.statusCode).toBe(200);
    expect(targets.json()).toEqual([]);
    const connectInfo = await app.inject({ method: 'GET', url: '/labs/default/services/alice/connect-info' });
    expect(connectInfo.statusCode).toBe(401);
    expect(connectInfo.json().error.code).toBe('TOKEN_REQUIRED');
    const withToken = await app.inject({
      method: 'GET',
      url: '/labs/default/services/alice/connect-info',
      headers: { authorization: 'Bearer the-token' },
    });
    expect(withToken.statusCode).toBe(404);
    expect(withToken.json().error.code).toBe('NO_SUCH_LAB');
  });

  it('serves no metrics when they are off', async () => {
    const app = await controlPlane(false);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/metrics/targets' })).statusCode).toBe(404);
  });
});
