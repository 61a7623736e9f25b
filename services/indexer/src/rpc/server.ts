import { createServer, type Server, type Socket } from 'node:net';
import type { ChainChange } from '../follower.js';
import { toDisplayHex } from '../hashes.js';
import type { Logger } from '../log.js';
import type { ScriptHashQueries } from '../queries.js';
import type { IndexStore } from '../store.js';
import { createMethods, PROTOCOL_VERSION, type MethodContext, type SessionHandle } from './methods.js';
import { ErrorCode, Params, RpcError } from './protocol.js';
import { negotiateVersion, NoCommonVersion } from './version.js';

/** A request line longer than this is refused (a raw tx of 1 MB in hex, with room to spare). */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

interface Request {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

class Session implements SessionHandle {
  headers = false;
  /** Subscribed script hash (internal hex) -> the status last sent. */
  readonly scriptHashes = new Map<string, string | null>();
  /** The protocol version agreed by server.version, which a connection may send only once. */
  private protocol: string | undefined;
  /** Set when the client and the server share no protocol: the connection ends after the reply. */
  ending = false;

  constructor(readonly socket: Socket) {}

  negotiate(requested: unknown): void {
    if (this.protocol)
      throw new RpcError(
        ErrorCode.badRequest,
        `server.version was already sent on this connection (protocol ${this.protocol}); only the first is accepted`,
      );
    this.protocol = negotiateVersion(requested, { min: PROTOCOL_VERSION, max: PROTOCOL_VERSION });
  }

  subscribeHeaders(): void {
    this.headers = true;
  }

  subscribeScriptHash(scriptHash: string, status: string | null): void {
    this.scriptHashes.set(scriptHash, status);
  }

  unsubscribeScriptHash(scriptHash: string): boolean {
    return this.scriptHashes.delete(scriptHash);
  }

  send(message: unknown): void {
    if (!this.socket.destroyed) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  notify(method: string, params: unknown[]): void {
    this.send({ jsonrpc: '2.0', method, params });
  }
}

/** The Electrum protocol over TCP: newline-delimited JSON-RPC 2.0, batches included. */
export class ElectrumServer {
  private readonly server: Server;
  private readonly sessions = new Set<Session>();
  private readonly methods;

  constructor(
    context: MethodContext,
    private readonly store: IndexStore,
    private readonly queries: ScriptHashQueries,
    private readonly log: Logger,
  ) {
    this.methods = createMethods(context);
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  close(): Promise<void> {
    for (const session of this.sessions) session.socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Tells subscribed sessions about a new tip and changed script hash statuses. */
  async notify(change: ChainChange): Promise<void> {
    if (change.tipChanged && this.store.height >= 0) {
      const tip = { height: this.store.height, hex: this.store.headerAt(this.store.height)!.toString('hex') };
      for (const session of this.sessions) if (session.headers) session.notify('blockchain.headers.subscribe', [tip]);
    }
    const statuses = new Map<string, string | null>();
    for (const session of this.sessions) {
      for (const [scriptHash, sent] of session.scriptHashes) {
        if (!change.scriptHashes.has(scriptHash)) continue;
        if (!statuses.has(scriptHash)) statuses.set(scriptHash, await this.queries.status(scriptHash));
        const status = statuses.get(scriptHash)!;
        if (status === sent) continue;
        session.scriptHashes.set(scriptHash, status);
        session.notify('blockchain.scripthash.subscribe', [toDisplayHex(Buffer.from(scriptHash, 'hex')), status]);
      }
    }
  }

  private accept(socket: Socket): void {
    const session = new Session(socket);
    this.sessions.add(session);
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    let buffered = '';
    // Requests of one connection are answered in order, one line at a time.
    let queue = Promise.resolve();
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) queue = queue.then(() => (session.ending ? undefined : this.answerLine(session, line)));
      }
      if (buffered.length > MAX_LINE_BYTES) {
        session.send(
          errorResponse(
            null,
            new RpcError(ErrorCode.invalidRequest, `request line longer than ${MAX_LINE_BYTES} bytes`),
          ),
        );
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.sessions.delete(session));
  }

  /** One line answered; whatever fails in there ends that line alone, never the connection's queue
   * (whose rejection nobody handles, which would end the process). */
  private async answerLine(session: Session, line: string): Promise<void> {
    try {
      await this.handleLine(session, line);
    } catch (error) {
      this.log.error('answering a request line failed', { error: (error as Error).message });
      session.send(errorResponse(null, new RpcError(ErrorCode.internalError, 'the request could not be answered')));
    }
  }

  private async handleLine(session: Session, line: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      session.send(errorResponse(null, new RpcError(ErrorCode.parseError, 'the request is not valid JSON')));
      return;
    }
    if (Array.isArray(message)) {
      if (message.length === 0) {
        session.send(errorResponse(null, new RpcError(ErrorCode.invalidRequest, 'an empty batch')));
        return;
      }
      const responses = [];
      for (const request of message) {
        const response = await this.handleRequest(session, request);
        if (response) responses.push(response);
      }
      if (responses.length > 0) session.send(responses);
    } else {
      const response = await this.handleRequest(session, message);
      if (response) session.send(response);
    }
    if (session.ending) session.socket.end();
  }

  /** The response object, or undefined for a notification (a request without an id). */
  private async handleRequest(session: Session, request: unknown): Promise<object | undefined> {
    if (!request || typeof request !== 'object' || typeof (request as Request).method !== 'string') {
      return errorResponse(null, new RpcError(ErrorCode.invalidRequest, 'a request needs a string "method"'));
    }
    const { id, method, params } = request as Required<Request> & { method: string };
    // JSON-RPC's rule, and what is echoed back is then always plain (a deeply nested id would not serialize)
    if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number')
      return errorResponse(null, new RpcError(ErrorCode.invalidRequest, '"id" must be a string, a number or null'));
    const isNotification = !('id' in (request as object));
    const spec = this.methods.get(method);
    this.log.debug('request', { method });
    try {
      if (!spec) throw new RpcError(ErrorCode.methodNotFound, `unknown method "${method}"`);
      const parsed = new Params(method, params, spec.names);
      if (method === 'server.version') session.negotiate(parsed.value(1));
      const result = await spec.run(parsed, session);
      return isNotification ? undefined : { jsonrpc: '2.0', id, result };
    } catch (error) {
      if (error instanceof NoCommonVersion) session.ending = true;
      if (!(error instanceof RpcError)) this.log.error('request failed', { method, error: (error as Error).message });
      const rpcError =
        error instanceof RpcError ? error : new RpcError(ErrorCode.internalError, (error as Error).message);
      return isNotification ? undefined : errorResponse(id, rpcError);
    }
  }
}

function errorResponse(id: unknown, error: RpcError): object {
  return { jsonrpc: '2.0', id: id ?? null, error: { code: error.code, message: error.message } };
}
