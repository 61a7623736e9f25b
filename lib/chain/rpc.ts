import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import { BtcdWebSocketRpc } from './btcd-websocket-rpc.js';
import { nodeAddresses } from './node-addresses.js';
import { ChainRpcError, type ChainRpcConfig, type RpcExchange } from './types.js';

/** How long a request may go unanswered before its connection is taken as dead. */
const TIMEOUT_MS = 60_000;

/** Sends one request body (a call or a batch, whose first id is `id`) and brings back the node's answer. */
interface RpcTransport {
  exchange(body: string, id: number): Promise<RpcExchange>;
  close(): void;
}

/**
 * A JSON-RPC 1.0 client (bitcoind and btcd dialect) with basic auth: over btcd's websocket for btcd
 * (one connection for every call: lib/chain/btcd-websocket-rpc.ts), over HTTP or HTTPS otherwise.
 */
export class JsonRpcClient {
  private readonly transport: RpcTransport;
  private nextId = 0;

  constructor(private readonly config: ChainRpcConfig) {
    this.transport = config.kind === 'btcd' ? new BtcdWebSocketRpc(config, TIMEOUT_MS) : new HttpRpc(config);
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = ++this.nextId;
    const { status, text, json } = await this.transport.exchange(
      JSON.stringify({ jsonrpc: '1.0', id, method, params }),
      id,
    );
    let parsed: { result?: T; error?: { code: number; message: string } | null };
    try {
      parsed = (json ?? JSON.parse(text)) as typeof parsed;
    } catch {
      throw new ChainRpcError(
        method,
        status,
        `${this.config.kind} answered ${status}: ${text.slice(0, 200) || '(empty)'}`,
      );
    }
    if (parsed.error) throw new ChainRpcError(method, parsed.error.code, parsed.error.message);
    return parsed.result as T;
  }

  /**
   * Several calls in one HTTP request (a JSON-RPC batch: an array body, answered by an array, which
   * btcd and bitcoind both serve, btcd also on its websocket). Results come in the order of `calls`;
   * the first call the node refused throws its ChainRpcError.
   */
  async batch<T>(calls: Array<{ method: string; params: unknown[] }>): Promise<T[]> {
    if (calls.length === 0) return [];
    const firstId = this.nextId + 1;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '1.0', id: firstId + i, method: c.method, params: c.params })),
    );
    const { status, text, json } = await this.transport.exchange(body, firstId);
    let answers: Array<{ id: number; result?: T; error?: { code: number; message: string } | null }>;
    try {
      answers = (json ?? JSON.parse(text)) as typeof answers;
    } catch {
      throw new ChainRpcError(
        calls[0]!.method,
        status,
        `${this.config.kind} answered ${status}: ${text.slice(0, 200) || '(empty)'}`,
      );
    }
    if (!Array.isArray(answers))
      throw new ChainRpcError(
        calls[0]!.method,
        status,
        `${this.config.kind} did not answer the batch with an array: ${text.slice(0, 200)}`,
      );
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map((c, i) => {
      const answer = byId.get(firstId + i);
      if (!answer)
        throw new ChainRpcError(
          c.method,
          status,
          `${this.config.kind} left call ${i} (${c.method}) of a batch unanswered`,
        );
      if (answer.error) throw new ChainRpcError(c.method, answer.error.code, answer.error.message);
      return answer.result as T;
    });
  }

  close(): void {
    this.transport.close();
  }
}

/** Each request a connection of its own (btcd closes each after its answer), from one agent. */
class HttpRpc implements RpcTransport {
  private readonly url: URL;
  private readonly auth: string;
  private readonly agent: HttpAgent;

  constructor(private readonly config: ChainRpcConfig) {
    this.url = new URL(config.url);
    this.auth = `Basic ${Buffer.from(`${config.user}:${config.password}`).toString('base64')}`;
    // One TLS context for every connection: given `ca`, Node builds a context for each one (parsing
    // the certificate, setting the ciphers)
    this.agent =
      this.url.protocol === 'https:'
        ? new HttpsAgent({
            keepAlive: true,
            maxSockets: 8,
            secureContext: createSecureContext({ ca: config.tlsCertPem }),
            lookup: nodeAddresses.lookup,
          })
        : new HttpAgent({ keepAlive: true, maxSockets: 8, lookup: nodeAddresses.lookup });
  }

  close(): void {
    this.agent.destroy();
  }

  exchange(body: string): Promise<RpcExchange> {
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            authorization: this.auth,
            'content-length': Buffer.byteLength(body),
          },
          timeout: TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${this.config.kind} RPC timed out at ${this.config.url}`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        nodeAddresses.forgetAfter(this.url.hostname, error);
        reject(error);
      });
      req.end(body);
    });
  }
}
