// Who may do what. On loopback (the default) the control plane trusts its machine. Exposed to a
// network (`reglab up --listen 0.0.0.0`, for a workshop) it asks for the token `up` printed: without
// it, reading the lab's state stays open, every action and every secret is refused with 401. Each
// lab's own token (`reglab list` shows them) grants the same, on the routes of that lab only.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../../../lib/errors.js';

/** read: open to anyone who reaches the API; action: changes something; secret: shows credentials. */
export type Access = 'read' | 'action' | 'secret';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

export function accessOf(request: FastifyRequest): Access {
  return (
    request.routeOptions.config?.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'action')
  );
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : undefined;
}

function matches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const isLoopback = (host: string) => host === '127.0.0.1' || host === '::1' || host === 'localhost';

/** The lab a request's route is about (/labs/:name/...), if any; taking a lab down is not its own token's to do. */
function labOf(request: FastifyRequest): string | undefined {
  const route = request.routeOptions.url;
  if (!route?.startsWith('/labs/:name') || (route === '/labs/:name' && request.method === 'DELETE')) return undefined;
  return (request.params as { name?: string } | undefined)?.name;
}

/**
 * With a token, actions and secrets need `Authorization: Bearer <token>`: the control plane's, or
 * on a lab's routes that lab's own (`labToken`). GET /access[?lab=NAME] tells a client (the
 * dashboard) whether a token is asked for and whether the one it sends is good (for that lab).
 */
export function installAccess(
  app: FastifyInstance,
  token: string | undefined,
  labToken: (lab: string) => string | undefined = () => undefined,
): void {
  const grants = (request: FastifyRequest, lab: string | undefined) => {
    if (token === undefined) return true;
    const given = bearer(request);
    if (matches(given, token)) return true;
    const own = lab === undefined ? undefined : labToken(lab);
    return own !== undefined && matches(given, own);
  };
  app.get<{ Querystring: { lab?: string } }>(
    '/access',
    {
      schema: {
        summary:
          "Whether actions and secrets need a token here, and whether this request carries a good one (with ?lab=NAME, the lab's own token counts too)",
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { lab: { type: 'string', maxLength: 100 } },
        },
        response: {
          200: {
            type: 'object',
            required: ['tokenRequired', 'authorized'],
            properties: { tokenRequired: { type: 'boolean' }, authorized: { type: 'boolean' } },
          },
        },
      },
    },
    async (request) => ({
      tokenRequired: token !== undefined,
      authorized: grants(request, request.query.lab),
    }),
  );
  if (token === undefined) return;
  app.addHook('onRequest', async (request) => {
    const access = accessOf(request);
    if (access === 'read' || grants(request, labOf(request))) return;
    throw unauthorized(
      `this control plane is open to the network: ${access === 'secret' ? 'credentials and logs' : 'actions'} need the token \`reglab up\` printed (Authorization: Bearer <token>)`,
      'TOKEN_REQUIRED',
    );
  });
}
