// Snapshots of labs: save, list, remove; a lab brought up from one; a lab reset to its snapshot.
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../../../lib/http/errors.js';
import { describeSnapshot } from '../../snapshots/manifest.js';
import { LabSnapshots } from '../../snapshots/lab-snapshots.js';
import type { ApiDeps } from '../deps.js';
import { answer, labParams } from '../schemas.js';

// names are checked by the snapshot store, which says what a name may hold
const snapshotName = { type: 'string', minLength: 1, maxLength: 100 } as const;
const snapshotParams = { type: 'object', required: ['snapshot'], properties: { snapshot: snapshotName } } as const;
const saveBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: snapshotName },
} as const;

export function snapshotRoutes(app: FastifyInstance, { manager }: ApiDeps): void {
  const snapshots = new LabSnapshots(manager);

  app.get(
    '/snapshots',
    {
      schema: {
        summary: 'Snapshots of this state folder',
        response: { 200: answer('{ snapshots: [{ name, lab, runtime, createdAt, height, bytes, services }] }') },
      },
    },
    async () => ({ snapshots: snapshots.list() }),
  );

  app.post<{ Params: { name: string }; Body: { name: string } }>(
    '/labs/:name/snapshots',
    {
      schema: {
        summary: 'Save a ready lab as a snapshot: its services stop, their data is copied, they start again',
        params: labParams,
        body: saveBody,
        response: {
          201: answer('the snapshot: { name, lab, runtime, createdAt, height, bytes, services }'),
          ...errorResponses(401, 404, 409, 502, 503),
        },
      },
    },
    async (request, reply) => {
      const saved = await snapshots.save(request.params.name, request.body.name);
      reply.status(201);
      return describeSnapshot(saved);
    },
  );

  app.delete<{ Params: { snapshot: string } }>(
    '/snapshots/:snapshot',
    {
      schema: {
        summary: 'Remove a snapshot',
        params: snapshotParams,
        response: { 200: answer('{ name, removed: true }'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await snapshots.remove(request.params.snapshot);
      return { name: request.params.snapshot, removed: true };
    },
  );

  app.post<{ Params: { snapshot: string } }>(
    '/snapshots/:snapshot/up',
    {
      schema: {
        summary: 'Bring up the lab a snapshot holds, as it was then',
        params: snapshotParams,
        response: {
          202: answer('{ name, status, snapshot, events }: follow the events'),
          ...errorResponses(401, 404, 409, 502),
        },
      },
    },
    async (request, reply) => {
      const lab = await snapshots.up(request.params.snapshot);
      reply.status(202);
      return {
        name: lab.name,
        status: lab.status,
        snapshot: request.params.snapshot,
        events: `/labs/${lab.name}/events`,
      };
    },
  );

  app.post<{ Params: { name: string } }>(
    '/labs/:name/reset',
    {
      schema: {
        summary: 'Put a lab back to the snapshot it came from (or last saved)',
        params: labParams,
        response: { 200: answer('{ name, status, snapshot, phases }'), ...errorResponses(401, 404, 409, 502, 503) },
      },
    },
    async (request) => {
      const { lab, snapshot } = await snapshots.reset(request.params.name);
      return { name: lab.name, status: lab.status, snapshot, phases: lab.phases };
    },
  );
}
