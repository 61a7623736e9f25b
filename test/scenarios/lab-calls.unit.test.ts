// How scenario steps ask the control plane for jobs: each request with an Idempotency-Key of its
// own, so the CLI's client may send it again to a control plane its keeper started again.
import { describe, expect, it } from 'vitest';
import { LabCalls, type LabApi } from '../../scenarios/src/steps/lab-calls.js';

function recordingApi() {
  const asked: { method: string; path: string; idempotencyKey?: string }[] = [];
  const api: LabApi = {
    request: async <T>(
      method: string,
      path: string,
      _body?: unknown,
      options: { idempotencyKey?: string } = {},
    ): Promise<T> => {
      asked.push({ method, path, idempotencyKey: options.idempotencyKey });
      return (
        path.includes('wait=true')
          ? { id: 'mining-x', state: 'completed', result: { height: 1 } }
          : { job: 'mining-x', state: 'waiting', url: '/jobs/mining-x' }
      ) as T;
    },
  };
  return { api, asked };
}

describe('the lab calls of scenario steps', () => {
  it('give every job request a key of its own, and other requests none', async () => {
    const { api, asked } = recordingApi();
    const lab = new LabCalls(api, 'unit');
    expect(await lab.runJob('/mine', { blocks: 1 })).toEqual({ height: 1 });
    await lab.runJob('/mine', { blocks: 1 });
    await lab.startJob('/mine', { blocks: 1 });
    await lab.post('/services/bob/kill');
    const keys = asked.map((call) => call.idempotencyKey);
    expect(keys.slice(0, 3)).toEqual([
      expect.stringMatching(/^[0-9a-f-]{36}$/),
      expect.stringMatching(/^[0-9a-f-]{36}$/),
      expect.stringMatching(/^[0-9a-f-]{36}$/),
    ]);
    expect(new Set(keys.slice(0, 3)).size).toBe(3);
    expect(keys[3]).toBeUndefined();
    expect(asked.map((call) => `${call.method} ${call.path}`)).toEqual([
      'POST /labs/unit/mine?wait=true',
      'POST /labs/unit/mine?wait=true',
      'POST /labs/unit/mine',
      'POST /labs/unit/services/bob/kill',
    ]);
  });
});
