// The metrics every lab service serves (lib/http/metrics.ts): its requests by route pattern and
// status, its process, in Prometheus' text format at GET /metrics.
import type { FastifyInstance } from 'fastify';
import { Counter } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installMetrics } from '../../lib/http/metrics.js';
import { createService } from '../../lib/http/service.js';
import { sampleValue } from '../support/prometheus-text.js';

describe('the HTTP service metrics', () => {
  let app: FastifyInstance;
  let own: Counter;

  beforeAll(async () => {
    app = await createService({ title: 'kit', description: 'a service with metrics', version: '1.0.0', logger: false });
    const registry = installMetrics(app);
    own = new Counter({ name: 'kit_things_total', help: 'things made', registers: [registry] });
    app.get(
      '/things/:id',
      { schema: { params: { type: 'object', properties: { id: { type: 'string', maxLength: 3 } } } } },
      async (request) => ({ id: (request.params as { id: string }).id }),
    );
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  const metrics = async () => {
    const answer = await app.inject({ method: 'GET', url: '/metrics' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.body;
  };

  it('counts requests by the route pattern, not the URL, with their status', async () => {
    for (const id of ['a', 'b', 'c']) await app.inject({ method: 'GET', url: `/things/${id}` });
    await app.inject({ method: 'GET', url: '/things/toolong' });
    await app.inject({ method: 'GET', url: '/nothing/here' });
    const text = await metrics();
    const count = (route: string, status: string) =>
      sampleValue(text, 'http_request_duration_seconds_count', { method: 'GET', route, status_code: status });
    expect(count('/things/:id', '200')).toBe(3);
    expect(count('/things/:id', '400')).toBe(1);
    expect(count('unmatched', '404')).toBe(1);
    expect(text).not.toContain('/things/a');
  });

  it("serves the process's metrics and the service's own beside its requests", async () => {
    own.inc(2);
    const text = await metrics();
    expect(sampleValue(text, 'kit_things_total')).toBe(2);
    // prom-client counts the CPU used since it began counting: a scrape right after may read 0
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('documents /metrics in the OpenAPI document as plain text', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.paths['/metrics'].get.responses['200'].content['text/plain']).toBeDefined();
  });
});
