// A wallet's metadata is the client's own JSON, stored as jsonb. It is bounded so that storing and
// serializing it stays cheap and never recurses deeper than a stack allows.
import { invalid } from '../errors.js';

/** Most levels of nested objects and arrays. */
export const METADATA_MAX_DEPTH = 32;
/** Most bytes of the metadata as JSON text. */
export const METADATA_MAX_BYTES = 16 * 1024;

/** Refuses metadata nested deeper or larger than the bounds (400). Walks without recursion, so a
 * value nested thousands deep is refused here instead of overflowing the stack. */
export function checkMetadata(metadata: unknown): void {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: metadata, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= METADATA_MAX_DEPTH) {
      throw invalid(
        'METADATA_TOO_DEEP',
        `metadata may nest objects and arrays at most ${METADATA_MAX_DEPTH} levels deep`,
      );
    }
    for (const child of Object.values(value)) pending.push({ value: child, depth: depth + 1 });
  }
  if (Buffer.byteLength(JSON.stringify(metadata) ?? '') > METADATA_MAX_BYTES) {
    throw invalid('METADATA_TOO_LARGE', `metadata may be at most ${METADATA_MAX_BYTES} bytes as JSON`);
  }
}
