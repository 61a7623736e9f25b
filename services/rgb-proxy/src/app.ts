import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { createService } from '../../../lib/http/service.js';
import { createMethods, SERVER_VERSION } from './methods.js';
import { failure, PROTOCOL_VERSION, RpcCode, RpcFailure, success, type RpcResponse } from './protocol.js';
import { readCall } from './request.js';
import type { ProxyStore } from './store.js';

export interface ProxyAppOptions {
  store: ProxyStore;
  maxUploadBytes: number;
  logger?: FastifyServerOptions['logger'];
}

/** Multipart form fields besides the file: jsonrpc, id, method, params or a few params[name]. */
const MAX_FORM_FIELDS = 16;
const MAX_FIELD_BYTES = 64 * 1024;

const rpcId = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] } as const;

const jsonRequestSchema = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { ...rpcId, description: 'left out for a notification, which gets no answer (204)' },
    method: {
      type: 'string',
      enum: ['server.info', 'consignment.get', 'consignment.post', 'media.get', 'media.post', 'ack.get', 'ack.post'],
    },
    params: {
      type: 'object',
      properties: {
        recipient_id: { type: 'string', description: 'the blinded UTXO or witness recipient id of the RGB invoice' },
        attachment_id: { type: 'string' },
        ack: { type: 'boolean', description: 'ack.post: true accepts the consignment, false refuses it' },
      },
    },
  },
} as const;

const formRequestSchema = {
  type: 'object',
  required: ['jsonrpc', 'method', 'file'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: 'string' },
    method: { type: 'string', enum: ['consignment.post', 'media.post'] },
    params: {
      type: 'string',
      description:
        'the params as JSON text: {"recipient_id","txid","vout"?} or {"attachment_id"}; or send params[name] fields instead',
    },
    file: { type: 'string', format: 'binary' },
  },
} as const;

const rpcResponseSchema = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  description:
    "a result, or an error with the protocol code: -100 cannot change ACK, -101 cannot change uploaded file, -200..-204 invalid ACK / attachment id / recipient id / txid / vout, -300..-303 missing ACK / attachment id / recipient id / file or txid, -400 consignment not found, -401 media not found; -32000 file too large, and JSON-RPC's -32700, -32600, -32601, -32603",
  properties: {
    jsonrpc: { type: 'string' },
    id: rpcId,
    result: {},
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' } },
    },
  },
} as const;

const healthSchema = {
  type: 'object',
  required: ['status', 'protocol_version', 'version', 'uptime_seconds', 'consignments', 'media'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    protocol_version: { type: 'string' },
    version: { type: 'string' },
    uptime_seconds: { type: 'integer' },
    consignments: { type: 'integer', description: 'consignments stored' },
    media: { type: 'integer', description: 'media files stored' },
  },
} as const;

/** The RGB consignment proxy: HTTP JSON-RPC protocol 0.2 at POST /json-rpc, data in a ProxyStore. */
export async function buildApp(options: ProxyAppOptions): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab RGB proxy',
    description:
      'The RGB consignment proxy (RGB HTTP JSON-RPC, protocol 0.2): payers post consignments for a recipient id, payees fetch them and ACK or NACK.',
    version: SERVER_VERSION,
    logger: options.logger ?? false,
  });
  const startedAt = Date.now();
  const callMethod = createMethods(options.store, startedAt);

  await app.register(async (scope) => {
    // A call comes as JSON or as a multipart form; anything else is refused (415) before the protocol.
    // A JSON body that does not parse is JSON-RPC's own parse error (-32700), answered in its shape.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    await scope.register(multipart, {
      limits: { fileSize: options.maxUploadBytes, files: 1, fields: MAX_FORM_FIELDS, fieldSize: MAX_FIELD_BYTES },
    });
    scope.post(
      '/json-rpc',
      {
        schema: {
          tags: ['rgb-proxy'],
          summary: 'One call of the RGB HTTP JSON-RPC protocol 0.2',
          description:
            'JSON for server.info, consignment.get, media.get, ack.get and ack.post; multipart/form-data with a file for consignment.post and media.post. Protocol errors are JSON-RPC errors answered with HTTP 200; a request without a body is no call (400 MISSING_BODY).',
          body: {
            content: {
              'application/json': { schema: jsonRequestSchema },
              'multipart/form-data': { schema: formRequestSchema },
            },
          },
          response: {
            200: rpcResponseSchema,
            204: { type: 'null', description: 'a notification (a request without id): no answer' },
          },
        },
        // The body schema documents the call; the call itself is checked by the protocol, whose
        // refusals must be JSON-RPC errors rather than HTTP 400s.
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const read = await readCall(request, options.maxUploadBytes);
        if (!read.ok) return failure(read.id, read.error);
        const id = read.call.id ?? null;
        let response: RpcResponse;
        try {
          response = success(id, await callMethod(read.call.method, read.params, read.call.file));
        } catch (error) {
          if (!(error instanceof RpcFailure))
            request.log.error({ err: error, method: read.call.method }, 'call failed');
          response = failure(
            id,
            error instanceof RpcFailure
              ? error
              : new RpcFailure(
                  RpcCode.internalError,
                  'Internal error: the proxy could not complete the call; its log says more',
                ),
          );
        }
        return read.call.id === undefined ? reply.status(204).send() : response;
      },
    );
  });

  app.get(
    '/health',
    { schema: { tags: ['health'], summary: 'The proxy answers; what it stores', response: { 200: healthSchema } } },
    () => ({
      status: 'ok',
      protocol_version: PROTOCOL_VERSION,
      version: SERVER_VERSION,
      uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
      ...options.store.counts,
    }),
  );
  return app;
}
