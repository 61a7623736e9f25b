// The HTTP service kit: what every reglab HTTP service (control plane, wallet server, faucet, chain
// adapter, rgb services) shares — Fastify with strict JSON schemas, the one error model for domain
// and framework errors alike, an OpenAPI document that declares every status a route can answer,
// and a clean shutdown.
import cors from '@fastify/cors';
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import type { DomainError } from '../errors.js';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { codeOfStatus, errorBody, errorResponseSchema, httpAnswerFor } from './errors.js';
import { numbersNotWritten } from './numbers-in-text.js';

export interface ServiceOptions {
  title: string;
  description: string;
  version: string;
  logger: FastifyServerOptions['logger'];
  trustProxy?: FastifyServerOptions['trustProxy'];
  /** Answer browsers of any origin (CORS), for services web pages call directly. */
  cors?: boolean;
  /** Extra parts of the OpenAPI document (security schemes, tags). */
  openapi?: { components?: Record<string, unknown>; tags?: { name: string; description?: string }[] };
  /** A service's own failures (a node down, an indexer away) as domain errors; others pass through. */
  mapError?: (error: unknown) => DomainError | undefined;
  bodyLimit?: number;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A route's validator or serializer, compiled when the route is first asked rather than as the
 * service starts: Ajv and fast-json-stringify compiling every route was a large part of a service's
 * start, on the path of a lab's bring-up (bench:snapshot). Fastify reads a failed validation's `errors`
 * off the function it was given.
 */
function compiledOnFirstUse<Result>(compile: () => (data: unknown) => Result): (data: unknown) => Result {
  let compiled: ((data: unknown) => Result) | undefined;
  const run = (data: unknown) => (compiled ??= compile())(data);
  return Object.defineProperty(run, 'errors', { get: () => (compiled as { errors?: unknown } | undefined)?.errors });
}

/** `validate` for text (path, query, headers), refusing first a number its schema asks for that is not written as one. */
function numbersAsWritten(schema: unknown, validate: (data: unknown) => boolean): (data: unknown) => boolean {
  let errors: unknown;
  const run = (data: unknown): boolean => {
    const notWritten = numbersNotWritten(schema, data);
    if (notWritten) {
      errors = notWritten;
      return false;
    }
    const valid = validate(data);
    errors = (validate as { errors?: unknown }).errors;
    return valid;
  };
  return Object.defineProperty(run, 'errors', { get: () => errors });
}

/** Fastify's own serializer compiler (fast-json-stringify), each route's compiled on first use. */
const buildSerializerOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => compiledOnFirstUse(() => compile(route));
};

/**
 * Bodies are validated strictly: no type coercion (a "5" is not an amount of 5), unknown fields
 * refused where a schema says additionalProperties: false. Path, query and headers arrive as text,
 * so they are coerced, a number only from text that writes one (lib/http/numbers-in-text.ts).
 */
function installStrictValidation(app: FastifyInstance): void {
  const make = (coerceTypes: boolean | 'array') => {
    // the routes' schemas are the code's own, checked by the OpenAPI conformance tests: checking each
    // against JSON Schema's meta-schema first would cost every service's start the compiling of that meta-schema
    const ajv = new Ajv({
      coerceTypes,
      useDefaults: true,
      removeAdditional: false,
      allErrors: false,
      strict: false,
      validateSchema: false,
    });
    addFormats.default(ajv);
    return ajv;
  };
  const strict = make(false);
  const coercing = make('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? compiledOnFirstUse(() => strict.compile(schema))
      : numbersAsWritten(
          schema,
          compiledOnFirstUse(() => coercing.compile(schema)),
        ),
  );
  // Ajv's "must NOT have additional properties" does not say which: the message names the field.
  app.setSchemaErrorFormatter((errors, dataVar) => {
    const unknownField = (params: Record<string, unknown>) =>
      typeof params.additionalProperty === 'string' ? ` (unknown field "${params.additionalProperty}")` : '';
    return new Error(
      errors
        .map(
          (e) =>
            `${dataVar}${e.instancePath} ${e.message}${e.keyword === 'additionalProperties' ? unknownField(e.params) : ''}`,
        )
        .join(', '),
    );
  });
}

/**
 * Each documented route also declares what the framework answers for it: 400 for input that fails
 * its schema or whose path parameter is too long, 413/415 for bodies, 500.
 */
function declareFrameworkResponses(route: RouteOptions): void {
  const schema = route.schema;
  if (!schema || schema.hide) return;
  const methods = [route.method].flat();
  const statuses = new Set<number>([500]);
  if (
    schema.body ||
    schema.querystring ||
    schema.params ||
    schema.headers ||
    route.url.includes(':') ||
    methods.some((method) => BODY_METHODS.has(method))
  )
    statuses.add(400);
  if (methods.some((method) => BODY_METHODS.has(method))) {
    statuses.add(413);
    statuses.add(415);
  }
  // a query string or headers too long for Node's parser: answered before any route runs
  if (schema.querystring || schema.params || schema.headers) statuses.add(431);
  const response = { ...((schema.response as Record<string, unknown> | undefined) ?? {}) };
  for (const status of statuses) response[status] ??= errorResponseSchema;
  schema.response = response;
}

/** Routes by path pattern, to tell an unknown path (404) from a known one asked with another method (405). */
class RouteTable {
  private readonly routes: { pattern: RegExp; methods: string[] }[] = [];
  /** The methods of each path without parameters. */
  private readonly fixed = new Map<string, string[]>();

  add(route: RouteOptions): void {
    const pattern = new RegExp(
      `^${route.url
        .split('/')
        .map((part) =>
          part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/')}/?$`,
    );
    const methods = [route.method].flat();
    this.routes.push({ pattern, methods });
    if (!/[:*]/.test(route.url)) this.fixed.set(route.url, [...(this.fixed.get(route.url) ?? []), ...methods]);
  }

  methodsOf(path: string): string[] {
    return [...new Set(this.routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))];
  }

  /** The methods of the route without parameters at exactly this path, if there is one. */
  fixedMethodsOf(path: string): string[] | undefined {
    return this.fixed.get(path.length > 1 ? path.replace(/\/$/, '') : path);
  }
}

/**
 * What Node's HTTP parser reads of a request line and its headers (16 KiB by default): room for the
 * longest query value the services take (a BOLT11 invoice, 7089 characters) even percent-encoded.
 */
const MAX_HEADER_BYTES = 128 * 1024;

/**
 * What Node's HTTP parser refuses before Fastify sees a request (headers or a URL over its size
 * limit: 431, anything unparsable: 400), in the error body every reglab service answers with.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? `the request line and headers are larger than this server accepts (${MAX_HEADER_BYTES / 1024} KiB)`
      : `the request could not be read: ${error.message}`;
  const body = JSON.stringify(errorBody(codeOfStatus(status), message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function answerMethodNotAllowed(request: FastifyRequest, reply: FastifyReply, path: string, allowed: string[]) {
  return reply
    .status(405)
    .header('allow', allowed.join(', '))
    .send(errorBody('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}`));
}

function answerError(
  raw: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  mapError?: ServiceOptions['mapError'],
) {
  const mapped = mapError?.(raw);
  const answer = httpAnswerFor(mapped ?? raw);
  if (answer) return reply.status(answer.status).headers(answer.headers).send(answer.body);
  request.log.error({ err: raw }, 'request failed');
  return reply.status(500).send(errorBody('INTERNAL', 'internal error; the service log says more'));
}

export async function createService(options: ServiceOptions): Promise<FastifyInstance> {
  const routes = new RouteTable();
  const app = Fastify({
    logger: options.logger,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: options.bodyLimit,
    // a query value is refused by its schema (400 naming it) rather than by Node's parser (431)
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    // errors of the router before any route runs: a URL that does not decode, a parameter too long
    frameworkErrors: (error, request, reply) => answerError(error, request, reply),
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: { buildSerializer: buildSerializerOnFirstUse } },
  });
  installStrictValidation(app);
  app.addHook('onRoute', (route) => {
    routes.add(route);
    declareFrameworkResponses(route);
  });
  if (options.cors)
    await app.register(cors, { origin: true, methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] });
  await app.register(swagger, {
    openapi: {
      ...options.openapi,
      info: { title: options.title, description: options.description, version: options.version },
    },
  } as FastifyDynamicSwaggerOptions);
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());

  const answerUnrouted = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    // CORS answers OPTIONS on every path, which says nothing about the path existing
    const allowed = routes.methodsOf(path).filter((method) => method !== request.method && method !== 'OPTIONS');
    if (allowed.length > 0) return answerMethodNotAllowed(request, reply, path, allowed);
    return reply
      .status(404)
      .send(errorBody('NOT_FOUND', `no route ${request.method} ${path}; the API is described at /openapi.json`));
  };
  // A request no route takes is answered so even when Fastify finds fault with it first (a QUERY
  // without a content type): what is wrong is the method or the path.
  app.setErrorHandler((error, request, reply) =>
    request.is404 ? answerUnrouted(request, reply) : answerError(error, request, reply, options.mapError),
  );
  app.setNotFoundHandler(answerUnrouted);
  // A path that is a route of its own (POST /payments/pay) asked with a method only a route with a
  // parameter takes there (GET /payments/{id}): the caller named the fixed route with the wrong
  // method, and is told so (405), not that "pay" is a malformed id.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.url?.includes(':')) return;
    const path = request.url.split('?')[0]!;
    const fixed = routes.fixedMethodsOf(path);
    if (fixed && !fixed.includes(request.method))
      return answerMethodNotAllowed(
        request,
        reply,
        path,
        fixed.filter((method) => method !== 'OPTIONS'),
      );
  });
  return app;
}

/** Listens on host:port and closes the app (and whatever it registered onClose) on SIGTERM/SIGINT. */
export async function runService(
  app: FastifyInstance,
  host: string,
  port: number,
  log: FastifyBaseLogger = app.log,
): Promise<void> {
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      log.info({ signal }, 'shutting down');
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  await app.listen({ host, port });
}

/** Structured JSON logs at LOG_LEVEL (default info). */
export function loggerFromEnv(env: NodeJS.ProcessEnv): FastifyServerOptions['logger'] {
  return { level: env.LOG_LEVEL ?? 'info' };
}
