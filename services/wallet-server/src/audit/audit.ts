import type { Queryable } from '../db/db.js';
import { newId } from '../ids.js';

/** Security-relevant actions. Lightning code adds its own 'payment.*' actions. */
export interface AuditEvent {
  userId: string | null;
  action: string;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
  ip?: string;
}

export interface AuditItem {
  id: string;
  user_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: unknown;
  ip: string | null;
  created_at: string;
}

/** Pass a transaction's Queryable to make the entry commit or roll back with the change it records. */
export async function recordAudit(q: Queryable, e: AuditEvent): Promise<void> {
  await q.query(
    'insert into audit_log (id, user_id, action, target_type, target_id, details, ip) values ($1, $2, $3, $4, $5, $6, $7)',
    [
      newId(),
      e.userId,
      e.action,
      e.targetType ?? null,
      e.targetId ?? null,
      e.details ? JSON.stringify(e.details) : null,
      e.ip ?? null,
    ],
  );
}

export async function listAudit(q: Queryable, page: { before?: string; limit: number }): Promise<AuditItem[]> {
  const { rows } = await q.query<Omit<AuditItem, 'created_at'> & { created_at: Date }>(
    `select id::text, user_id::text, action, target_type, target_id, details, ip, created_at from audit_log
     where ($1::text is null or id::text < $1) order by id desc limit $2`,
    [page.before ?? null, page.limit],
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}
