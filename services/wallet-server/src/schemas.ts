export { errorResponses as errors } from '../../../lib/http/errors.js';

/** A UUID in either case; the pattern also refuses the urn:uuid: form that format "uuid" takes and
 * Postgres does not. */
export const uuidString = {
  type: 'string',
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

/** Path id of a resource the spec answers 404 for when unknown: any string is accepted and a
 * malformed id is simply not found. */
export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

/** Path id where the spec lists 400: a malformed UUID is a bad request. */
export const uuidParams = {
  type: 'object',
  required: ['id'],
  properties: { id: uuidString },
} as const;

/** Cursor paging of §8: default 50, at most 200 (more is a 400 saying so), minimum 0. */
export const pageQuery = {
  type: 'object',
  properties: {
    before: { type: 'string', description: 'cursor: only items whose id, as text, is less than this' },
    limit: { type: 'integer', minimum: 0, maximum: 200, default: 50 },
  },
} as const;

export interface PageQuery {
  before?: string;
  limit: number;
}

/** next_before is the id of the last item when the page is full, else null (no more items). */
export const nextCursor = (items: Array<{ id: string }>, limit: number) =>
  limit > 0 && items.length === limit ? items[items.length - 1]!.id : null;
