// Each service of a lab: fault commands, logs, credentials, connect info; and the peers of Lightning nodes.
import type { FastifyInstance } from 'fastify';
import { invalid, notFound } from '../../../../lib/errors.js';
import { errorResponses } from '../../../../lib/http/errors.js';
import { kindDefinition } from '../../nodes/registry.js';
import { runtimeOptionsFor } from '../../runtimes/select.js';
import type { ServiceAction } from '../../supervisor/faults.js';
import type { ApiDeps } from '../deps.js';
import { answer, connectInfoQuery, labErrors, labParams, logsQuery, peersBody, serviceParams } from '../schemas.js';
import { ownValue } from '../../util/own.js';

type Service = { Params: { name: string; service: string } };

const ACTIONS: Record<ServiceAction, string> = {
  stop: 'Stop a service cleanly; the supervisor leaves it stopped',
  start: 'Start a stopped or failed service and wait until it is ready',
  restart: 'Stop and start a service',
  kill: 'SIGKILL a service (container kill): a crash, which the supervisor handles by its restart policy',
};

export function serviceRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  for (const [action, summary] of Object.entries(ACTIONS) as [ServiceAction, string][]) {
    app.post<Service>(
      `/labs/:name/services/:service/${action}`,
      {
        schema: { summary, params: serviceParams, response: { 200: answer('{ service, status }'), ...labErrors } },
      },
      async (request) => {
        const service = await manager.faults(request.params.name).act(request.params.service, action);
        return { service: service.name, status: service.status };
      },
    );
  }

  for (const action of ['connect', 'disconnect'] as const) {
    app.post<{ Params: { name: string }; Body: { a: string; b: string } }>(
      `/labs/:name/peers/${action}`,
      {
        schema: {
          summary: `${action === 'connect' ? 'Connect' : 'Disconnect'} two Lightning nodes as peers`,
          params: labParams,
          body: peersBody,
          response: { 200: answer('{ a, b, connected }'), ...labErrors },
        },
      },
      async (request) => {
        await manager.faults(request.params.name).peers(action, request.body.a, request.body.b);
        return { a: request.body.a, b: request.body.b, connected: action === 'connect' };
      },
    );
  }

  const serviceOf = (lab: string, name: string) => {
    const service = ownValue(manager.get(lab).services, name);
    if (!service)
      throw notFound(
        `lab "${lab}" has no service "${name}" (services: ${Object.keys(manager.get(lab).services).join(', ')})`,
        'NO_SUCH_SERVICE',
      );
    return service;
  };

  app.get<Service & { Querystring: { lines: number } }>(
    '/labs/:name/logs/:service',
    {
      config: { access: 'secret' },
      schema: {
        summary: "The last lines of a service's log",
        params: serviceParams,
        querystring: logsQuery,
        response: {
          200: { description: 'plain text', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errorResponses(401, 404, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const service = serviceOf(request.params.name, request.params.service);
      const lab = manager.get(request.params.name);
      const { runtime } = await runtimeOptionsFor(lab.spec);
      reply.type('text/plain; charset=utf-8');
      return runtime.logs({ lab, service: service.name }, service.handle, request.query.lines);
    },
  );

  app.get<Service>(
    '/labs/:name/services/:service/credentials',
    {
      config: { access: 'secret' },
      schema: {
        summary: 'What a developer copies to reach the service: macaroon, TLS certificate, RPC user and password, URLs',
        params: serviceParams,
        response: { 200: answer('kind-specific fields'), ...labErrors },
      },
    },
    async (request) => {
      const service = serviceOf(request.params.name, request.params.service);
      return kindDefinition(service.kind).credentials(manager.session(request.params.name), service);
    },
  );

  app.get<Service & { Querystring: { user?: string } }>(
    '/labs/:name/services/:service/connect-info',
    {
      config: { access: 'secret' },
      schema: {
        summary:
          "What a wallet app or tool takes to reach the service: an lnd node's lndconnect URIs, an LDK node's API, the wallet server's API and a user's LNURL",
        params: serviceParams,
        querystring: connectInfoQuery,
        response: { 200: answer('{ service, kind, uris: { name: uri }, notes: [text] }'), ...labErrors },
      },
    },
    async (request) => {
      const service = serviceOf(request.params.name, request.params.service);
      const { connectInfo } = kindDefinition(service.kind);
      if (!connectInfo)
        throw invalid(
          'NO_CONNECT_INFO',
          `${service.name} is a ${service.kind}: connect-info covers lnd and ldk nodes and the wallet server (\`reglab status\` shows its URLs)`,
        );
      const info = await connectInfo(manager.session(request.params.name), service, { user: request.query.user });
      return { service: service.name, kind: service.kind, ...info };
    },
  );
}
