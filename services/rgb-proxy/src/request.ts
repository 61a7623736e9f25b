// One HTTP request to /json-rpc read as one call: a JSON body, or a multipart form whose fields
// are the envelope (jsonrpc, id, method), the params (one `params` field holding JSON, as rgb-lib
// sends them, or `params[name]` fields, as curl and the reference server's tests do) and a `file`.
import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { invalid } from '../../../lib/errors.js';
import { MethodParams } from './params.js';
import { envelopeOf, idOf, RpcCode, RpcFailure, type RpcCall, type RpcId } from './protocol.js';

export interface ReadCall {
  call: RpcCall;
  params: MethodParams;
}

export type ReadOutcome = ({ ok: true } & ReadCall) | { ok: false; id: RpcId; error: RpcFailure };

const BRACKET_PARAM = /^params\[([^\]]+)\]$/;

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RpcFailure(RpcCode.parseError, `Parse error: ${what} is not valid JSON (${(error as Error).message})`);
  }
}

function readJson(body: string): ReadOutcome {
  let parsed: unknown;
  try {
    parsed = parseJson(body, 'the body');
    const call = envelopeOf(parsed);
    return { ok: true, call, params: new MethodParams(call.params) };
  } catch (error) {
    if (error instanceof RpcFailure) return { ok: false, id: idOf(parsed), error };
    throw error;
  }
}

/**
 * What the multipart reader threw, as the protocol's refusal: its limits by their codes; anything
 * else is a body that is not a multipart form (no boundary, a cut or malformed part), which the
 * protocol answers as it answers JSON that does not parse.
 */
function multipartRefusal(error: unknown, maxUploadBytes: number): RpcFailure {
  switch ((error as { code?: string }).code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new RpcFailure(
        RpcCode.fileTooLarge,
        `File too large: uploads are limited to ${maxUploadBytes} bytes (the proxy's MAX_UPLOAD_BYTES)`,
      );
    case 'FST_FILES_LIMIT':
      return new RpcFailure(RpcCode.invalidRequest, 'Invalid request: attach one file, as the field "file"');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_PROTO_VIOLATION':
      return new RpcFailure(
        RpcCode.invalidRequest,
        `Invalid request: ${(error as Error).message}; send jsonrpc, id, method, params and one file`,
      );
    default:
      return new RpcFailure(
        RpcCode.parseError,
        `Parse error: the body is not a multipart form (${(error as Error).message})`,
      );
  }
}

async function readForm(request: FastifyRequest, maxUploadBytes: number): Promise<ReadOutcome> {
  const fields: Record<string, string> = {};
  const bracketParams: Record<string, string> = {};
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file')
          throw new RpcFailure(
            RpcCode.invalidRequest,
            `Invalid request: the file must be sent as the field "file", not "${part.fieldname}"`,
          );
        file = await part.toBuffer();
        continue;
      }
      const value = String(part.value);
      const bracket = BRACKET_PARAM.exec(part.fieldname);
      if (bracket) bracketParams[bracket[1]!] = value;
      else fields[part.fieldname] = value;
    }
    const fromFormFields = fields.params === undefined;
    const params = fromFormFields ? bracketParams : parseJson(fields.params!, 'the params field');
    const call = envelopeOf({
      jsonrpc: fields.jsonrpc,
      method: fields.method,
      params,
      ...('id' in fields ? { id: fields.id } : {}),
    });
    return { ok: true, call: { ...call, ...(file ? { file } : {}) }, params: new MethodParams(params, fromFormFields) };
  } catch (error) {
    // besides the protocol's own refusals, only the multipart reader throws in there
    return {
      ok: false,
      id: fields.id ?? null,
      error: error instanceof RpcFailure ? error : multipartRefusal(error, maxUploadBytes),
    };
  }
}

/** The call of a request; a request with no body at all is no JSON-RPC call, and an HTTP 400. */
export function readCall(request: FastifyRequest, maxUploadBytes: number): Promise<ReadOutcome> | ReadOutcome {
  if (request.isMultipart()) return readForm(request, maxUploadBytes);
  if (request.body === undefined)
    throw invalid(
      'MISSING_BODY',
      'POST /json-rpc takes one JSON-RPC call: a JSON body (application/json), or a multipart form for uploads',
    );
  return readJson(request.body as string);
}
