import type { Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { connect as netConnect, type NetConnectOpts } from 'node:net';
import WebSocket from 'ws';
import { nodeAddresses } from './node-addresses.js';
import type { ChainRpcConfig, RpcExchange } from './types.js';

interface Waiting {
  resolve(answer: RpcExchange): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The connection the request went on: its end is the request's. */
  socket?: WebSocket;
}

/**
 * JSON-RPC requests to btcd over its websocket (/ws), all on one connection, made at the first
 * request and again at the first after it ended. btcd closes each HTTP connection after its answer,
 * so over HTTPS every call paid a TLS handshake on both sides, most of what a call cost the caller
 * and btcd (bench/chain-rpc.ts). btcd answers a websocket's requests at once, each with its id, a
 * batch (an array) with an array. The connection does not keep the process alive while no request
 * waits. A request not answered within `timeoutMs` ends the connection, as it ended its HTTP one:
 * the node is taken as gone, and the next request connects again.
 */
export class BtcdWebSocketRpc {
  private socket?: WebSocket;
  /** The TCP or TLS socket under the websocket: held open only while a request waits. */
  private stream?: Socket;
  private readonly waiting = new Map<number, Waiting>();
  /** Requests made while the connection is being made, sent once it is open. */
  private unsent: string[] = [];

  constructor(
    private readonly config: ChainRpcConfig,
    private readonly timeoutMs: number,
  ) {}

  /** Sends `body`, a call whose id is `id` or a batch whose first id it is, and waits for its answer. */
  exchange(body: string, id: number): Promise<RpcExchange> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${this.config.kind} RPC timed out at ${this.config.url}`));
        this.socket?.terminate();
      }, this.timeoutMs);
      const waiting: Waiting = { resolve, reject, timer };
      this.waiting.set(id, waiting);
      this.stream?.ref();
      let socket: WebSocket;
      try {
        socket = this.connected();
      } catch (error) {
        clearTimeout(timer);
        this.waiting.delete(id);
        return reject(error);
      }
      waiting.socket = socket;
      if (socket.readyState === WebSocket.OPEN) socket.send(body);
      else this.unsent.push(body);
    });
  }

  close(): void {
    this.socket?.terminate();
  }

  private connected(): WebSocket {
    const current = this.socket;
    if (current && (current.readyState === WebSocket.OPEN || current.readyState === WebSocket.CONNECTING))
      return current;
    const rpcUrl = new URL(this.config.url);
    const secure = rpcUrl.protocol === 'https:';
    const url = new URL('/ws', this.config.url.replace(/^http/, 'ws'));
    let stream: Socket | undefined;
    // the socket under the websocket, to let the process end while no request waits
    const openStream = (options: ConnectionOptions & NetConnectOpts): Socket => {
      stream = secure ? tlsConnect(options) : netConnect(options);
      return stream;
    };
    const socket = new WebSocket(url, {
      headers: {
        authorization: `Basic ${Buffer.from(`${this.config.user}:${this.config.password}`).toString('base64')}`,
      },
      ca: this.config.tlsCertPem,
      lookup: nodeAddresses.lookup,
      createConnection: openStream as typeof netConnect,
    });
    this.socket = socket;
    this.stream = stream;
    this.unsent = [];
    socket.on('open', () => {
      for (const body of this.unsent) socket.send(body);
      this.unsent = [];
      this.holdWhileWaiting();
    });
    socket.on('message', (data) => this.answer(data.toString()));
    // btcd refused the connection with an HTTP answer (401 for a wrong password): each waiting
    // request gets it, as it got it over HTTP
    socket.on('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        const cut = new Error(
          `${this.config.kind} at ${this.config.url} cut its answer ${response.statusCode} short (${error.message})`,
        );
        this.settle(socket, (waiting) => waiting.reject(cut));
        socket.terminate();
      });
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.settle(socket, (waiting) => waiting.resolve({ status: response.statusCode ?? 0, text }));
        socket.terminate();
      });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      nodeAddresses.forgetAfter(rpcUrl.hostname, error);
      this.settle(socket, (waiting) => waiting.reject(error));
    });
    socket.on('close', () => {
      if (this.socket === socket) {
        this.socket = undefined;
        this.stream = undefined;
      }
      this.settle(socket, (waiting) =>
        waiting.reject(new Error(`the RPC connection to ${this.config.kind} at ${this.config.url} ended`)),
      );
    });
    return socket;
  }

  /** Hands a message to the request whose id it carries (a batch's answer: the id of one of its elements). */
  private answer(text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return; // not JSON-RPC: nothing waits for it
    }
    const ids = (Array.isArray(json) ? json : [json]).map((element) => (element as { id?: unknown } | null)?.id);
    const id = ids.find(
      (candidate): candidate is number => typeof candidate === 'number' && this.waiting.has(candidate),
    );
    if (id === undefined) return; // a notice, or the answer to a request that timed out
    const waiting = this.waiting.get(id)!;
    this.waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.resolve({ status: 200, text, json });
    this.holdWhileWaiting();
  }

  /** Ends each request that went on `socket`. */
  private settle(socket: WebSocket, end: (waiting: Waiting) => void): void {
    for (const [id, waiting] of this.waiting) {
      if (waiting.socket !== socket) continue;
      this.waiting.delete(id);
      clearTimeout(waiting.timer);
      end(waiting);
    }
    this.holdWhileWaiting();
  }

  private holdWhileWaiting(): void {
    if (this.waiting.size > 0) this.stream?.ref();
    else this.stream?.unref();
  }
}
