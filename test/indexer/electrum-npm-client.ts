// The npm Electrum client the lab uses (@mempool/electrum-client), wrapped for tests. It resolves a
// falsy result (null status, 0) as the whole response object, and rejects with the error object.
// @ts-expect-error the package ships no type declarations
import ElectrumClient from '@mempool/electrum-client';

export interface NpmElectrum {
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  batch<T = unknown>(
    method: string,
    params: unknown[],
  ): Promise<{ param: unknown; result?: T; error?: { message: string } }[]>;
  notifications(method: string): unknown[][];
  close(): void;
}

export async function connectNpmElectrum(port: number): Promise<NpmElectrum> {
  const client = new ElectrumClient(port, '127.0.0.1', 'tcp', undefined, { onLog: () => undefined });
  await client.initElectrum(
    { client: 'reglab-test', version: '1.4' },
    { retryPeriod: 0, maxRetry: 0, pingPeriod: 0, callback: () => undefined },
  );
  const received = new Map<string, unknown[][]>();
  const record = (method: string) => (params: unknown[]) => {
    if (!received.has(method)) received.set(method, []);
    received.get(method)!.push(params);
  };
  for (const method of ['blockchain.headers.subscribe', 'blockchain.scripthash.subscribe'])
    client.subscribe.on(method, record(method));
  return {
    async request(method, params = []) {
      try {
        return await client.request(method, params);
      } catch (error) {
        throw new Error((error as { message?: string }).message ?? String(error));
      }
    },
    batch: (method, params) => client.requestBatch(method, params),
    notifications: (method) => received.get(method) ?? [],
    close: () => client.close(),
  };
}
