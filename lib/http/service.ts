import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { HttpError, errorBody } from './errors.js';

export interface ServiceOptions {
  title: string;
  description: string;
  version: string;
  logger: FastifyServerOptions['logger'];
  trustProxy?: FastifyServerOptions['trustProxy'];
  /** Turns a service's own failures (a dependency down, a domain refusal) into HTTP errors. */
  mapError?: (error: Error) => HttpError | undefined;
}

/**
 * A Fastify instance with what every lab HTTP service shares: CORS for browsers, an OpenAPI document
 * at /openapi.json (UI at /docs) and JSON error bodies `{ error: { code, message } }` for every failure,
 * including schema validation (400) and unknown routes (404).
 */
export async function createService(options: ServiceOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger, trustProxy: options.trustProxy ?? false });
  await app.register(cors, { origin: true, methods: ['GET', 'POST', 'OPTIONS'] });
  await app.register(swagger, {
    openapi: { info: { title: options.title, description: options.description, version: options.version } },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());

  app.setErrorHandler((raw: FastifyError | HttpError | Error, request, reply) => {
    const error = options.mapError?.(raw) ?? raw;
    if (error instanceof HttpError) {
      return reply.status(error.statusCode).headers(error.headers).send(errorBody(error.code, error.message, error.details));
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      return reply.status(400).send(errorBody('BAD_REQUEST', fastifyError.message));
    }
    if (fastifyError.statusCode && fastifyError.statusCode < 500) {
      return reply.status(fastifyError.statusCode).send(errorBody(fastifyError.code ?? 'BAD_REQUEST', fastifyError.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody('INTERNAL', `internal error: ${error.message}`));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}; the API is described at /openapi.json`)),
  );
  return app;
}

/** Listens on host:port and closes the app (and whatever it registered onClose) on SIGTERM/SIGINT. */
export async function runService(app: FastifyInstance, host: string, port: number, log: FastifyBaseLogger = app.log): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
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
