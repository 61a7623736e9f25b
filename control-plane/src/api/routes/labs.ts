import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../../../lib/http/errors.js';
import { inspectLab } from '../../lab/inspect.js';
import type { ApiDeps } from '../deps.js';
import { answer, autoMiningBody, createLabBody, labErrors, labParams } from '../schemas.js';

type Name = { Params: { name: string } };

export function labRoutes(app: FastifyInstance, { manager, jobs, restarted, builds }: ApiDeps): void {
  app.get(
    '/health',
    {
      schema: {
        summary: 'The control plane answers',
        response: {
          200: answer(
            '{ status, labs (their number), restarts (by its keeper, after the last control plane ended without its stop), lastEnded (how and when it ended), built (when the reglab it runs was built), installedBuild (when reglab was built again since it started: it runs the build before until `reglab down` then `reglab up`) }',
          ),
        },
      },
    },
    async () => {
      const installed = builds?.installed();
      return {
        status: 'ok',
        labs: manager.list().length,
        restarts: restarted?.restarts ?? 0,
        ...(restarted ? { lastEnded: restarted.lastEnded } : {}),
        ...(builds?.running ? { built: builds.running } : {}),
        ...(builds?.running && installed && installed !== builds.running ? { installedBuild: installed } : {}),
      };
    },
  );

  app.get(
    '/labs',
    {
      schema: {
        summary: 'Labs with their status',
        response: { 200: answer('{ labs: [{ name, status, runtime, createdAt }] }') },
      },
    },
    async () => ({
      labs: manager
        .list()
        .map((lab) => ({ name: lab.name, status: lab.status, runtime: lab.runtime, createdAt: lab.createdAt })),
    }),
  );

  app.post<{ Body: { yaml: string; file?: string } }>(
    '/labs',
    {
      schema: {
        summary: 'Validate lab.yaml and start bringing the lab up',
        body: createLabBody,
        response: { 202: answer('{ name, status, events }: follow the events'), ...errorResponses(401, 409, 502) },
      },
    },
    async (request, reply) => {
      const lab = await manager.create(request.body.yaml, request.body.file);
      reply.status(202);
      return { name: lab.name, status: lab.status, events: `/labs/${lab.name}/events` };
    },
  );

  app.get<Name>(
    '/labs/:name',
    {
      schema: {
        summary: 'Services, nodes, balances, channels, height',
        params: labParams,
        response: { 200: answer('the lab as `reglab status` shows it'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const lab = manager.get(request.params.name);
      return inspectLab(
        lab,
        lab.status === 'ready' || lab.status === 'degraded' ? manager.session(lab.name) : undefined,
      );
    },
  );

  app.delete<Name & { Querystring: { volumes: boolean; force: boolean } }>(
    '/labs/:name',
    {
      schema: {
        summary: 'Stop every service and remove the lab',
        description:
          'A docker lab whose container engine does not answer is refused (503), unless `force`: the lab is then forgotten, and `leftInEngine` says what stays in that engine. Containers not of the lab that are on its network (a test client of your own) are disconnected from it, so that it can be removed, and named in `detached`; they are left in place.',
        params: labParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { volumes: { type: 'boolean', default: false }, force: { type: 'boolean', default: false } },
        },
        response: {
          200: answer('{ name, status: stopped, leftInEngine?, detached? }'),
          ...errorResponses(401, 404, 502, 503),
        },
      },
    },
    async (request) => {
      return {
        name: request.params.name,
        status: 'stopped',
        ...(await manager.remove(request.params.name, { volumes: request.query.volumes, force: request.query.force })),
      };
    },
  );

  app.get<Name>(
    '/labs/:name/access',
    {
      config: { access: 'secret' },
      schema: {
        summary:
          "The lab's own token (it grants this lab's actions and secrets on a control plane open to the network) and its dashboard's path with it",
        params: labParams,
        response: { 200: answer('{ lab, token, dashboard }'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const lab = manager.get(request.params.name);
      const token = lab.secrets.accessToken;
      const page = `/?lab=${encodeURIComponent(lab.name)}`;
      return { lab: lab.name, token, dashboard: token ? `${page}#token=${token}` : page };
    },
  );

  app.get<Name>(
    '/labs/:name/auto-mining',
    {
      schema: {
        summary: 'The seconds between auto-mined blocks (0: none)',
        params: labParams,
        response: { 200: answer('{ lab, autoMineSeconds }'), ...errorResponses(404) },
      },
    },
    async (request) => {
      manager.get(request.params.name);
      return { lab: request.params.name, autoMineSeconds: await jobs.autoMiningSeconds(request.params.name) };
    },
  );

  app.put<Name & { Body: { seconds: number } }>(
    '/labs/:name/auto-mining',
    {
      schema: {
        summary: 'Mine a block every N seconds (0 stops)',
        params: labParams,
        body: autoMiningBody,
        response: { 200: answer('{ lab, autoMineSeconds }'), ...labErrors },
      },
    },
    async (request) => {
      manager.session(request.params.name);
      await jobs.setAutoMining(request.params.name, request.body.seconds);
      return { lab: request.params.name, autoMineSeconds: request.body.seconds };
    },
  );
}
