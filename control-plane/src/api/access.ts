// Who may do what. On loopback (the default) the control plane trusts its machine. Exposed to a
// network (`reglab up --listen 0.0.0.0`, for a workshop) it asks for the token `up` printed: without
// it, reading the lab's state stays open, every action and every secret is refused with 401.
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

/**
 * With a token, actions and secrets need `Authorization: Bearer <token>`. GET /access tells a
 * client (the dashboard) whether a token is asked for and whether the one it sends is good.
 */
export function installAccess(app: FastifyInstance, token: string | undefined): void {
  app.get(
    '/access',
    {
      schema: {
        summary: 'Whether actions and secrets need a token here, and whether this request carries a good one',
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
      authorized: token === undefined || matches(bearer(request), token),
    }),
  );
  if (token === undefined) return;
  app.addHook('onRequest', async (request) => {
    const access = accessOf(request);
    if (access === 'read' || matches(bearer(request), token)) return;
    throw unauthorized(
      `this control plane is open to the network: ${access === 'secret' ? 'credentials and logs' : 'actions'} need the token \`reglab up\` printed (Authorization: Bearer <token>)`,
      'TOKEN_REQUIRED',
    );
  });
}
