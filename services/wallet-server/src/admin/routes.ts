import type { FastifyInstance } from 'fastify';
import { listAudit } from '../audit/audit.js';
import { principalOf } from '../auth/hook.js';
import { errors, nextCursor, pageQuery, type PageQuery } from '../schemas.js';

export async function adminRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/admin/me',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Admin identity (admins are the pubkeys in ADMIN_PUBKEYS)',
        response: {
          200: {
            type: 'object',
            properties: {
              user_id: { type: 'string' },
              pubkey: { type: 'string' },
              is_admin: { type: 'boolean' },
              source: { type: 'string' },
            },
          },
          ...errors(401, 403),
        },
      },
    },
    async (request) => {
      const p = principalOf(request);
      return { user_id: p.userId, pubkey: p.pubkey, is_admin: true, source: 'ADMIN_PUBKEYS' };
    },
  );

  app.get<{ Querystring: PageQuery }>(
    '/admin/audit',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Security audit log of all users, newest first, by cursor (id as text < before)',
        querystring: pageQuery,
        response: {
          200: {
            type: 'object',
            properties: {
              items: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    user_id: { type: ['string', 'null'] },
                    action: { type: 'string' },
                    target_type: { type: ['string', 'null'] },
                    target_id: { type: ['string', 'null'] },
                    details: {},
                    ip: { type: ['string', 'null'] },
                    created_at: { type: 'string' },
                  },
                },
              },
              next_before: { type: ['string', 'null'] },
            },
          },
          ...errors(400, 401, 403, 502),
        },
      },
    },
    async (request) => {
      const items = await listAudit(app.db, request.query);
      return { items, next_before: nextCursor(items, request.query.limit) };
    },
  );
}
