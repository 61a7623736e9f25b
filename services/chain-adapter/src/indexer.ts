import { createRequire } from 'node:module';

/** One entry of blockchain.scripthash.get_history: height <= 0 means in the mempool. */
export interface HistoryItem {
  tx_hash: string;
  height: number;
  fee?: number;
}

export interface UnspentItem {
  tx_hash: string;
  tx_pos: number;
  height: number;
  value: number;
}

/** What the adapter asks an Electrum indexer; script hashes are Electrum's (sha256 of the script, reversed). */
export interface Indexer {
  history(scriptHash: string): Promise<HistoryItem[]>;
  listUnspent(scriptHash: string): Promise<UnspentItem[]>;
  transactionHex(txid: string): Promise<string>;
  blockHeaderHex(height: number): Promise<string>;
  merkleProof(txid: string, height: number): Promise<{ block_height: number; merkle: string[]; pos: number }>;
  /** Up to `count` consecutive 80-byte headers from `start`, concatenated, as hex. */
  blockHeadersHex(start: number, count: number): Promise<string>;
  tipHeight(): Promise<number>;
  close(): void;
}

/** The indexer answered with an Electrum error (unknown transaction, bad request...). */
export class IndexerRpcError extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(`indexer ${method}: ${message}`);
    this.name = 'IndexerRpcError';
  }
}

/** The indexer could not be reached or did not answer in time. */
export class IndexerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexerUnavailableError';
  }
}

interface MempoolElectrumClient {
  initElectrum(
    config: { client: string; version: string },
    persistence: { retryPeriod: number; maxRetry: number; pingPeriod: number; callback: null },
  ): Promise<unknown>;
  request(method: string, params: unknown[]): Promise<unknown>;
  close(): void;
}

type ElectrumClientClass = new (
  port: number,
  host: string,
  protocol: 'tcp' | 'tls',
  options?: object,
  callbacks?: { onError?: (error: unknown) => void; onLog?: (text: string) => void; onClose?: () => void },
) => MempoolElectrumClient;

// @mempool/electrum-client is CommonJS without types; this is the part of it used here.
const ElectrumClient = createRequire(import.meta.url)('@mempool/electrum-client') as ElectrumClientClass;

export interface IndexerEndpoint {
  host: string;
  port: number;
  protocol: 'tcp' | 'tls';
}

/** tcp://host:port (plain) or ssl://host:port / tls://host:port. */
export function parseIndexerUrl(url: string): IndexerEndpoint {
  const match = /^(tcp|ssl|tls):\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(url);
  if (!match) throw new Error(`INDEXER_URL must look like tcp://127.0.0.1:50001 (or ssl://host:port), not "${url}"`);
  return {
    protocol: match[1] === 'tcp' ? 'tcp' : 'tls',
    host: match[2]!.replace(/^\[|\]$/g, ''),
    port: Number(match[3]),
  };
}

/**
 * An Electrum indexer over one multiplexed connection (@mempool/electrum-client, the client the
 * indexer's own tests use). The connection is opened on first use and opened again after it drops;
 * every request has a deadline, so a stuck indexer gives an error instead of a hung HTTP request.
 */
export class ElectrumIndexer implements Indexer {
  private client?: Promise<MempoolElectrumClient>;
  private closed = false;

  constructor(
    private readonly endpoint: IndexerEndpoint,
    private readonly timeoutMs = 15_000,
  ) {}

  private connect(): Promise<MempoolElectrumClient> {
    if (this.closed) return Promise.reject(new IndexerUnavailableError('the indexer client is closed'));
    if (!this.client) {
      const { host, port, protocol } = this.endpoint;
      const client = new ElectrumClient(
        port,
        host,
        protocol,
        {},
        {
          onError: () => undefined,
          onLog: () => undefined,
          onClose: () => this.forget(attempt),
        },
      );
      // maxRetry 0 and no callback: the client does not reconnect by itself; the next request does.
      const attempt = client
        .initElectrum(
          { client: 'reglab-chain-adapter', version: '1.4' },
          { retryPeriod: 1, maxRetry: 0, pingPeriod: 60_000, callback: null },
        )
        .then(() => client)
        .catch((error: unknown) => {
          this.forget(attempt);
          client.close();
          throw new IndexerUnavailableError(
            `cannot reach the indexer at ${protocol}://${host}:${port}: ${describe(error)}`,
          );
        });
      this.client = attempt;
    }
    return this.client;
  }

  private forget(attempt: Promise<MempoolElectrumClient>) {
    if (this.client === attempt) this.client = undefined;
  }

  async request<T>(method: string, params: unknown[]): Promise<T> {
    const client = await this.connect();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new IndexerUnavailableError(`the indexer did not answer ${method} within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return (await Promise.race([client.request(method, params), deadline])) as T;
    } catch (error) {
      if (error instanceof IndexerUnavailableError) throw error;
      // The client rejects with the server's JSON-RPC error object, or with an Error when the socket failed.
      if (error instanceof Error)
        throw new IndexerUnavailableError(`the indexer connection failed during ${method}: ${error.message}`);
      throw new IndexerRpcError(method, describe(error));
    } finally {
      clearTimeout(timer);
    }
  }

  history(scriptHash: string) {
    return this.request<HistoryItem[]>('blockchain.scripthash.get_history', [scriptHash]);
  }

  listUnspent(scriptHash: string) {
    return this.request<UnspentItem[]>('blockchain.scripthash.listunspent', [scriptHash]);
  }

  transactionHex(txid: string) {
    return this.request<string>('blockchain.transaction.get', [txid, false]);
  }

  blockHeaderHex(height: number) {
    return this.request<string>('blockchain.block.header', [height]);
  }

  async blockHeadersHex(start: number, count: number) {
    return (await this.request<{ hex: string }>('blockchain.block.headers', [start, count])).hex;
  }

  merkleProof(txid: string, height: number) {
    return this.request<{ block_height: number; merkle: string[]; pos: number }>('blockchain.transaction.get_merkle', [
      txid,
      height,
    ]);
  }

  async tipHeight() {
    return (await this.request<{ height: number }>('blockchain.headers.subscribe', [])).height;
  }

  close() {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    void client?.then(
      (c) => c.close(),
      () => undefined,
    );
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return JSON.stringify(error);
}
