// The RGB HTTP JSON-RPC protocol, version 0.2: its envelope and its error codes. Its errors are
// answered in JSON-RPC's own shape (HTTP 200, as the reference server does and rgb-lib reads),
// not in reglab's error body: a JSON-RPC client reads `error.code`, never the HTTP status.

export const PROTOCOL_VERSION = '0.2';

/** The protocol's codes (the reference server's names), then JSON-RPC's own. */
export const RpcCode = {
  cannotChangeAck: -100,
  cannotChangeUploadedFile: -101,
  invalidAck: -200,
  invalidAttachmentId: -201,
  invalidRecipientId: -202,
  invalidTxid: -203,
  invalidVout: -204,
  missingAck: -300,
  missingAttachmentId: -301,
  missingRecipientId: -302,
  /** The protocol uses -303 for a missing file and a missing txid alike. */
  missingFileOrTxid: -303,
  consignmentNotFound: -400,
  mediaNotFound: -401,
  /** JSON-RPC's implementation-defined server error range (-32000..-32099): an upload over the limit. */
  fileTooLarge: -32000,
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internalError: -32603,
} as const;

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

/** A JSON-RPC id: a string, a number or null (rgb-lib sends null, or "1" in multipart forms). */
export type RpcId = string | number | null;

export interface RpcCall {
  /** Absent for a notification, which gets no answer. */
  id?: RpcId;
  method: string;
  params: unknown;
  /** The uploaded file of a multipart request. */
  file?: Buffer;
}

export type RpcResponse = { jsonrpc: '2.0'; id: RpcId } & (
  | { result: unknown }
  | { error: { code: number; message: string } }
);

export const success = (id: RpcId, result: unknown): RpcResponse => ({ jsonrpc: '2.0', id, result });
export const failure = (id: RpcId, error: RpcFailure): RpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: { code: error.code, message: error.message },
});

const isRpcId = (value: unknown): value is RpcId =>
  value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** The envelope of a parsed JSON body: `jsonrpc: "2.0"`, a method name, an optional id and params. */
export function envelopeOf(body: unknown): Omit<RpcCall, 'file'> {
  if (Array.isArray(body))
    throw new RpcFailure(
      RpcCode.invalidRequest,
      'Invalid request: batches are not supported; send one call per request',
    );
  if (typeof body !== 'object' || body === null)
    throw new RpcFailure(RpcCode.invalidRequest, 'Invalid request: the body must be a JSON-RPC 2.0 request object');
  const request = body as Record<string, unknown>;
  if (request.jsonrpc !== '2.0')
    throw new RpcFailure(RpcCode.invalidRequest, 'Invalid request: "jsonrpc" must be "2.0"');
  if (typeof request.method !== 'string' || request.method === '')
    throw new RpcFailure(
      RpcCode.invalidRequest,
      'Invalid request: "method" must be a method name such as "server.info"',
    );
  if ('id' in request && !isRpcId(request.id))
    throw new RpcFailure(RpcCode.invalidRequest, 'Invalid request: "id" must be a string, a number or null');
  return { ...('id' in request ? { id: request.id as RpcId } : {}), method: request.method, params: request.params };
}

/** The id of a request that failed before its envelope could be read, if it can be told. */
export function idOf(body: unknown): RpcId {
  const id =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).id : null;
  return isRpcId(id) ? id : null;
}
