import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { JobQueues, JobRequest } from '../jobs.js';
import type { LabEvent } from '../lab/events.js';
import { inspectLab } from '../lab/inspect.js';
import { assertRegtestAddress, UserInputError } from '../lab/operations.js';
import { LabConflictError, LabNotFoundError, type LabManager } from '../manager.js';
import { runtimeOptionsFor } from '../runtimes/select.js';
import { LabSpecError } from '../spec/parse.js';
import { describeError } from '../../../lib/errors.js';
import { errorResponseSchema } from '../../../lib/http/errors.js';
import { autoMiningBody, channelBody, createLabBody, fundBody, labParams, mineBody, paymentBody, waitQuery } from './schemas.js';

export interface ControlPlaneApp {
  manager: LabManager;
  jobs: JobQueues;
  /** Called by POST /shutdown (the CLI asks for it when the last lab is down). */
  shutdown(): void;
  logger?: boolean;
}

type NameParams = { name: string };
type WaitQuery = { wait: boolean };

export async function buildControlPlaneApp(options: ControlPlaneApp): Promise<FastifyInstance> {
  const { manager, jobs } = options;
  const app = Fastify({ logger: options.logger ?? false, ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } } });
  await app.register(swagger, {
    openapi: { info: { title: 'reglab control plane', version: '0.1.0', description: 'Labs, their services, and the work queued on them.' } },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const [status, code] = classify(error);
    const body: Record<string, unknown> = { code, message: describeError(error) };
    if (error instanceof LabSpecError) body.problems = error.problems;
    reply.status(status).send({ error: body });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url}` } });
  });

  const errors = { 400: errorResponseSchema, 404: errorResponseSchema, 409: errorResponseSchema };
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/health', async () => ({ status: 'ok', labs: manager.list().length }));

  app.get('/labs', async () => ({ labs: manager.list().map((lab) => ({ name: lab.name, status: lab.status, runtime: lab.runtime, createdAt: lab.createdAt })) }));

  app.post<{ Body: { yaml: string; file?: string } }>('/labs', { schema: { body: createLabBody, response: errors } }, async (request, reply) => {
    const lab = await manager.create(request.body.yaml, request.body.file);
    reply.status(202);
    return { name: lab.name, status: lab.status, events: `/labs/${lab.name}/events` };
  });

  app.get<{ Params: NameParams }>('/labs/:name', { schema: { params: labParams } }, async (request) => {
    const lab = manager.get(request.params.name);
    return inspectLab(lab, lab.status === 'ready' ? manager.session(lab.name) : undefined);
  });

  app.delete<{ Params: NameParams; Querystring: { volumes?: boolean } }>('/labs/:name', {
    schema: { params: labParams, querystring: { type: 'object', properties: { volumes: { type: 'boolean', default: false } } } },
  }, async (request) => {
    await manager.remove(request.params.name, { volumes: request.query.volumes ?? false });
    return { name: request.params.name, status: 'stopped' };
  });

  app.get<{ Params: NameParams & { service: string }; Querystring: { lines: number } }>('/labs/:name/logs/:service', {
    schema: { params: { type: 'object', properties: { name: labParams.properties.name, service: { type: 'string' } } }, querystring: { type: 'object', properties: { lines: { type: 'integer', minimum: 1, maximum: 10_000, default: 100 } } } },
  }, async (request, reply) => {
    const lab = manager.get(request.params.name);
    const service = lab.services[request.params.service];
    if (!service) throw new LabNotFoundError(`lab "${lab.name}" has no service "${request.params.service}" (services: ${Object.keys(lab.services).join(', ')})`);
    const { runtime } = await runtimeOptionsFor(lab.runtime);
    reply.type('text/plain');
    return runtime.logs({ lab: { name: lab.name, dir: lab.dir }, service: service.name }, service.handle, request.query.lines);
  });

  const enqueue = async (request: JobRequest, wait: boolean, reply: { status(code: number): unknown }) => {
    manager.session(request.lab);
    const id = await jobs.add(request);
    if (!wait) {
      reply.status(202);
      return { job: id, state: 'waiting', url: `/jobs/${id}` };
    }
    return jobs.wait(id, 120_000);
  };
  const assertNode = (lab: string, node: string) => {
    if (!manager.get(lab).spec.nodes.some((candidate) => candidate.name === node)) {
      throw new UserInputError(`lab "${lab}" has no node "${node}" (nodes: ${manager.get(lab).spec.nodes.map((n) => n.name).join(', ')})`);
    }
  };

  app.post<{ Params: NameParams; Querystring: WaitQuery; Body: { blocks: number; address?: string } }>('/labs/:name/mine', {
    schema: { params: labParams, querystring: waitQuery, body: mineBody },
  }, async (request, reply) => {
    if (request.body.address) assertRegtestAddress(request.body.address);
    return enqueue({ queue: 'mining', lab: request.params.name, blocks: request.body.blocks, address: request.body.address }, request.query.wait, reply);
  });

  app.post<{ Params: NameParams; Querystring: WaitQuery; Body: { node?: string; address?: string; amount_sat: number } }>('/labs/:name/fund', {
    schema: { params: labParams, querystring: waitQuery, body: fundBody },
  }, async (request, reply) => {
    const { node, address, amount_sat } = request.body;
    if (node) assertNode(request.params.name, node);
    if (address) assertRegtestAddress(address);
    return enqueue({ queue: 'funding', lab: request.params.name, node, address, amountSat: String(amount_sat) }, request.query.wait, reply);
  });

  app.post<{ Params: NameParams; Querystring: WaitQuery; Body: { from: string; to: string; capacity_sat: number; push_sat: number } }>('/labs/:name/channels', {
    schema: { params: labParams, querystring: waitQuery, body: channelBody },
  }, async (request, reply) => {
    const { from, to, capacity_sat, push_sat } = request.body;
    assertNode(request.params.name, from);
    assertNode(request.params.name, to);
    if (from === to) throw new UserInputError('a channel needs two different nodes');
    if (push_sat >= capacity_sat) throw new UserInputError('push_sat must be less than capacity_sat');
    return enqueue({ queue: 'channels', lab: request.params.name, from, to, capacitySat: capacity_sat, pushSat: push_sat }, request.query.wait, reply);
  });

  app.post<{ Params: NameParams; Querystring: WaitQuery; Body: { from: string; to: string; amount_sat: number } }>('/labs/:name/payments', {
    schema: { params: labParams, querystring: waitQuery, body: paymentBody },
  }, async (request, reply) => {
    const { from, to, amount_sat } = request.body;
    assertNode(request.params.name, from);
    assertNode(request.params.name, to);
    if (from === to) throw new UserInputError('a payment needs two different nodes');
    return enqueue({ queue: 'payments', lab: request.params.name, from, to, amountSat: amount_sat }, request.query.wait, reply);
  });

  app.put<{ Params: NameParams; Body: { seconds: number } }>('/labs/:name/auto-mining', { schema: { params: labParams, body: autoMiningBody } }, async (request) => {
    manager.session(request.params.name);
    await jobs.setAutoMining(request.params.name, request.body.seconds);
    return { lab: request.params.name, autoMineSeconds: request.body.seconds };
  });

  app.get<{ Params: { id: string } }>('/jobs/:id', { schema: { params: { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } } } }, async (request) => {
    const job = await jobs.get(request.params.id);
    if (!job) throw new LabNotFoundError(`no job "${request.params.id}"`);
    return job;
  });

  const streamEvents = (filter: (event: LabEvent) => boolean, snapshot: () => LabEvent[]) => async (request: { raw: { on(event: 'close', fn: () => void): void } }, reply: { hijack(): void; raw: NodeJS.WritableStream & { writeHead(status: number, headers: Record<string, string>): void } }) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: LabEvent) => reply.raw.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    snapshot().forEach(send);
    const listener = (event: LabEvent) => filter(event) && send(event);
    manager.events.on('event', listener);
    const keepAlive = setInterval(() => reply.raw.write(': keep-alive\n\n'), 15_000);
    request.raw.on('close', () => {
      clearInterval(keepAlive);
      manager.events.off('event', listener);
    });
  };

  app.get('/events', streamEvents(() => true, () => []));
  app.get<{ Params: NameParams }>('/labs/:name/events', { schema: { params: labParams } }, async (request, reply) => {
    const lab = manager.get(request.params.name);
    // the current state first, so a client that connects late misses nothing
    const snapshot = (): LabEvent[] => [
      ...Object.values(lab.services).filter((service) => service.status !== 'pending').map((service): LabEvent => ({ type: 'service', lab: lab.name, service: service.name, status: service.status, message: service.error, info: service.info })),
      ...lab.phases.map((phase): LabEvent => ({ type: 'phase', lab: lab.name, phase: phase.name, ms: phase.ms })),
      ...(lab.status === 'starting' ? [] : [{ type: 'lab', lab: lab.name, status: lab.status, message: lab.error } as LabEvent]),
    ];
    return streamEvents((event) => event.lab === lab.name, snapshot)(request, reply as never);
  });

  app.post('/shutdown', async () => {
    setImmediate(options.shutdown);
    return { status: 'shutting down' };
  });

  return app;
}

function classify(error: FastifyError | Error): [number, string] {
  if ((error as FastifyError).validation) return [400, 'invalid_request'];
  if (error instanceof LabSpecError) return [400, 'invalid_lab_spec'];
  if (error instanceof UserInputError) return [400, 'invalid_request'];
  if (error instanceof LabNotFoundError) return [404, 'not_found'];
  if (error instanceof LabConflictError) return [409, 'conflict'];
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return [status, 'invalid_request'];
  return [500, 'internal_error'];
}
