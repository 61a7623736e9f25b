// The lab's network (a lab with network faults: lab.yaml network.faults): its links, and the faults
// set on them. docs/network-faults.md.
import type { FastifyInstance } from 'fastify';
import { MAX_BANDWIDTH_KBPS, MAX_LATENCY_MS } from '../../network/model.js';
import type { ApiDeps } from '../deps.js';
import { answer, labErrors, labParams, nodeName } from '../schemas.js';

type Lab = { Params: { name: string } };
type Pair = { a: string; b: string };

const ends = { a: nodeName, b: nodeName };
const pairBody = (properties: Record<string, object>, required: string[]) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['a', 'b', ...required],
    properties: { ...ends, ...properties },
  }) as const;
const changed = answer(
  '{ lab, links: [{ between: [a, b], fault?, description }] }: the pairs changed, with their fault now',
);

export function networkRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  app.get<Lab>(
    '/labs/:name/net',
    {
      schema: {
        summary: "The lab's links, the fault of each and its proxies as Toxiproxy reports them",
        description:
          'A lab brought up without network faults answers `faults: false` and no links. Each pair of services joined by links (two Lightning nodes, a node and its chain backend) has one proxy per service that dials the other, with its toxics.',
        params: labParams,
        response: {
          200: answer('{ lab, faults, links: [{ between, fault?, description, proxies }], cutOff }'),
          ...labErrors,
        },
      },
    },
    async (request) => ({ lab: request.params.name, ...(await manager.network(request.params.name).status()) }),
  );

  app.post<Lab & { Body: Pair & { delay_ms: number; jitter_ms: number } }>(
    '/labs/:name/net/delay',
    {
      schema: {
        summary: 'Delay what crosses the links between two services, each way (0 takes the delay off)',
        params: labParams,
        body: pairBody(
          {
            delay_ms: { type: 'integer', minimum: 0, maximum: MAX_LATENCY_MS },
            jitter_ms: {
              type: 'integer',
              minimum: 0,
              maximum: MAX_LATENCY_MS,
              default: 0,
              description: 'the delay varies by up to this much, up or down (at most the delay)',
            },
          },
          ['delay_ms'],
        ),
        response: { 200: changed, ...labErrors },
      },
    },
    async (request) => {
      const { a, b, delay_ms, jitter_ms } = request.body;
      const links = await manager.network(request.params.name).delay(a, b, delay_ms, jitter_ms);
      return { lab: request.params.name, links };
    },
  );

  app.post<Lab & { Body: Pair & { kbytes_per_second: number } }>(
    '/labs/:name/net/bandwidth',
    {
      schema: {
        summary: 'Hold each direction of the links between two services to a rate (0 takes the limit off)',
        params: labParams,
        body: pairBody({ kbytes_per_second: { type: 'integer', minimum: 0, maximum: MAX_BANDWIDTH_KBPS } }, [
          'kbytes_per_second',
        ]),
        response: { 200: changed, ...labErrors },
      },
    },
    async (request) => {
      const { a, b, kbytes_per_second } = request.body;
      const links = await manager.network(request.params.name).bandwidth(a, b, kbytes_per_second);
      return { lab: request.params.name, links };
    },
  );

  app.post<Lab & { Body: Pair & { percent: number } }>(
    '/labs/:name/net/loss',
    {
      schema: {
        summary: 'Reset connections over the links between two services now and then (0 stops it)',
        description:
          'TCP hides lost packets from the nodes; what they see of a lossy link is a connection that breaks. Each connection over the links is reset with this chance, drawn again every 10 s (Toxiproxy reset_peer).',
        params: labParams,
        body: pairBody({ percent: { type: 'number', minimum: 0, maximum: 100 } }, ['percent']),
        response: { 200: changed, ...labErrors },
      },
    },
    async (request) => {
      const { a, b, percent } = request.body;
      const links = await manager.network(request.params.name).loss(a, b, percent / 100);
      return { lab: request.params.name, links };
    },
  );

  app.post<Lab & { Body: { a: string; b?: string } }>(
    '/labs/:name/net/partition',
    {
      schema: {
        summary: 'Cut the links between two services, or every link of one (a node cut off from the lab)',
        params: labParams,
        body: { type: 'object', additionalProperties: false, required: ['a'], properties: ends },
        response: { 200: changed, ...labErrors },
      },
    },
    async (request) => {
      const links = await manager.network(request.params.name).partition(request.body.a, request.body.b);
      return { lab: request.params.name, links };
    },
  );

  app.post<Lab & { Body: { a?: string; b?: string } }>(
    '/labs/:name/net/heal',
    {
      schema: {
        summary: 'Take every fault off the links between two services, off those of one, or off all',
        params: labParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: ends,
          dependencies: { b: ['a'] },
        },
        response: { 200: changed, ...labErrors },
      },
    },
    async (request) => {
      const links = await manager.network(request.params.name).heal(request.body.a, request.body.b);
      return { lab: request.params.name, links };
    },
  );
}
