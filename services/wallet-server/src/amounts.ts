import { badRequest } from './errors.js';

// Amounts cross the API as JSON integers (up to 2^53-1) or decimal strings (any size up to
// 10^38); inside they are bigint; responses carry them as decimal strings.
export const amountSchema = {
  anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^[0-9]{1,38}$' }],
} as const;

export function parseAmount(value: unknown, field: string): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw badRequest('INVALID_AMOUNT', `${field} must be a non-negative integer below 2^53 (send larger values as a decimal string)`);
    }
    return BigInt(value);
  }
  if (typeof value === 'string' && /^[0-9]{1,38}$/.test(value)) return BigInt(value);
  throw badRequest('INVALID_AMOUNT', `${field} must be a non-negative integer or a decimal string of digits`);
}
