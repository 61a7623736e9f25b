// Toxiproxy's HTTP API, as the lab uses it: proxies made at once (populate), enabled or disabled,
// and their toxics added, changed and removed. Plain fetch: the API is small and stable, and its
// errors are answered here in the lab's own words.
import { upstreamFailed } from '../../../lib/errors.js';

export interface ProxyConfig {
  name: string;
  /** host:port the proxy listens on. */
  listen: string;
  /** host:port it connects each client to. */
  upstream: string;
  enabled: boolean;
}

export type ToxicStream = 'upstream' | 'downstream';

export interface Toxic {
  name: string;
  type: 'latency' | 'bandwidth' | 'reset_peer' | 'timeout' | 'slicer' | 'limit_data' | 'slow_close';
  /** upstream: from the client (the service that dials) to the service dialled; downstream: back. */
  stream: ToxicStream;
  /** The share of connections the toxic acts on, drawn for each connection (0 to 1). */
  toxicity: number;
  attributes: Record<string, number>;
}

export interface ProxyView extends ProxyConfig {
  toxics: Toxic[];
}

/** How long one call may take: the API answers at once unless Toxiproxy is stuck. */
const CALL_TIMEOUT_MS = 10_000;

export class ToxiproxyApi {
  constructor(readonly url: string) {}

  version(): Promise<string> {
    return this.call('GET', '/version', undefined, (response) => response.text());
  }

  /** Creates the proxies that do not exist yet (an existing one with the same addresses is kept as it is). */
  async populate(proxies: ProxyConfig[]): Promise<void> {
    await this.call('POST', '/populate', proxies);
  }

  proxies(): Promise<Record<string, ProxyView>> {
    return this.call('GET', '/proxies');
  }

  /** A disabled proxy drops its connections and refuses new ones. */
  async setEnabled(proxy: string, enabled: boolean): Promise<void> {
    await this.call('POST', `/proxies/${encodeURIComponent(proxy)}`, { enabled });
  }

  async addToxic(proxy: string, toxic: Toxic): Promise<void> {
    await this.call('POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, toxic);
  }

  /** Sets a toxic's attributes and toxicity; each connection draws its toxicity again. */
  async updateToxic(proxy: string, toxic: Toxic): Promise<void> {
    await this.call('POST', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic.name)}`, {
      attributes: toxic.attributes,
      toxicity: toxic.toxicity,
    });
  }

  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.call('DELETE', `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`);
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    read: (response: Response) => Promise<T> = (response) =>
      response.status === 204 ? Promise.resolve(undefined as T) : (response.json() as Promise<T>),
  ): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw upstreamFailed(
        'NETWORK_PROXY_UNREACHABLE',
        `the lab's network proxy (Toxiproxy at ${this.url}) does not answer: ${(error as Error).message}`,
        error,
      );
    }
    if (!response.ok) {
      const text = await response.text();
      const message = (() => {
        try {
          return (JSON.parse(text) as { error?: string }).error ?? text;
        } catch {
          return text;
        }
      })();
      throw upstreamFailed(
        'NETWORK_PROXY_FAILED',
        `the lab's network proxy (Toxiproxy) refused ${method} ${path}: ${response.status} ${message}`,
      );
    }
    return read(response);
  }
}
