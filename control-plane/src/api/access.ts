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
  return request.routeOptions.config?.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'action');
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

/** With a token, actions and secrets need `Authorization: Bearer <token>`. */
export function installAccess(app: FastifyInstance, token: string | undefined): void {
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
