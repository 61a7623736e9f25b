// Server-sent events: every change of every lab (/events), or of one lab starting with its
// current state (/labs/{name}/events), so a client that connects late misses nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LabEvent } from '../../lab/events.js';
import { servicesDown, type LabState } from '../../lab/state.js';
import { engineReachOf } from '../../runtimes/select.js';
import type { ApiDeps } from '../deps.js';
import { labParams } from '../schemas.js';

async function currentState(lab: LabState): Promise<LabEvent[]> {
  const engine = await engineReachOf(lab.spec);
  return [
    ...(engine && !engine.answering ? [{ type: 'engine', lab: lab.name, ...engine } as LabEvent] : []),
    ...Object.values(lab.services)
      .filter((service) => service.status !== 'pending')
      .map(
        (service): LabEvent => ({
          type: 'service',
          lab: lab.name,
          service: service.name,
          status: service.status,
          message: service.error,
          info: service.info,
          restarts: service.restarts,
        }),
      ),
    ...lab.phases.map((phase): LabEvent => ({ type: 'phase', lab: lab.name, phase: phase.name, ms: phase.ms })),
    ...(lab.status === 'starting'
      ? []
      : [
          {
            type: 'lab',
            lab: lab.name,
            status: lab.status,
            // a degraded lab says what is down, as the event that made it degraded did
            message: lab.status === 'degraded' ? servicesDown(lab) : lab.error,
          } as LabEvent,
        ]),
  ];
}

export function eventRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  // A stream never ends by itself, and a server closing waits for its requests to end: without
  // this, `reglab down` with a dashboard open never returned.
  const open = new Set<FastifyReply>();
  app.addHook('preClose', (done) => {
    for (const reply of open) reply.raw.end();
    done();
  });

  const stream = (
    request: FastifyRequest,
    reply: FastifyReply,
    filter: (event: LabEvent) => boolean,
    snapshot: LabEvent[],
  ) => {
    reply.hijack();
    open.add(reply);
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const send = (event: LabEvent) => reply.raw.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    snapshot.forEach(send);
    const listener = (event: LabEvent) => filter(event) && send(event);
    manager.events.on('event', listener);
    const keepAlive = setInterval(() => reply.raw.write(': keep-alive\n\n'), 15_000);
    request.raw.on('close', () => {
      open.delete(reply);
      clearInterval(keepAlive);
      manager.events.off('event', listener);
    });
  };

  app.get('/events', { schema: { hide: true } }, (request, reply) => stream(request, reply, () => true, []));
  app.get<{ Params: { name: string } }>(
    '/labs/:name/events',
    { schema: { hide: true, params: labParams } },
    async (request, reply) => {
      const lab = manager.get(request.params.name);
      stream(request, reply, (event) => event.lab === lab.name, await currentState(lab));
    },
  );
}
