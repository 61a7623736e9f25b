import { invalid } from './errors.js';

/** Amounts are int64 in the spec (and bigint columns in the ledger). */
export const MAX_AMOUNT = 2n ** 63n - 1n;

// Amounts cross the API as JSON integers (up to 2^53-1, beyond which JSON numbers lose precision)
// or decimal strings (up to 2^63-1); inside they are bigint; responses carry decimal strings.
export const amountSchema = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^[0-9]{1,19}$' },
  ],
} as const;

export function parseAmount(value: unknown, field: string): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw invalid(
        'INVALID_AMOUNT',
        `${field} must be a non-negative integer below 2^53 (send larger values as a decimal string)`,
      );
    }
    return BigInt(value);
  }
  if (typeof value === 'string' && /^[0-9]{1,19}$/.test(value) && BigInt(value) <= MAX_AMOUNT) return BigInt(value);
  throw invalid(
    'INVALID_AMOUNT',
    `${field} must be a non-negative integer (or a decimal string of digits) up to 2^63-1`,
  );
}
