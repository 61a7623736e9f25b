import { describe, expect, it } from 'vitest';
import { isUuid, newId } from '../../services/wallet-server/src/ids.js';

describe('wallet-server ids (UUIDv7)', () => {
  it('are valid version-7 UUIDs whose text order is creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    expect(ids.every(isUuid)).toBe(true);
    expect(ids.every((id) => id[14] === '7' && '89ab'.includes(id[19]!))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('carry the creation time in the first 48 bits', () => {
    const before = Date.now();
    const ms = parseInt(newId().replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 10); // runs ahead only past 4096 ids in one ms
  });
});
