// Pieces of the argument schemas that several step kinds share.

export const text = { type: 'string', minLength: 1 } as const;
export const node = {
  type: 'string',
  minLength: 1,
  description: 'a Lightning node of the lab (lab.yaml nodes[].name)',
} as const;
export const service = {
  type: 'string',
  minLength: 1,
  description: 'a service of the lab (reglab status lists them)',
} as const;
export const sat = { type: 'integer', minimum: 1 } as const;
/** msat amounts: a JSON integer, or a decimal string for amounts beyond 2^53. */
export const msat = { type: ['integer', 'string'], minimum: 0, pattern: '^\\d+$' } as const;

export function object(properties: Record<string, object>, required: string[] = []) {
  return { type: 'object', additionalProperties: false, required, properties } as const;
}

/** Exactly one of the keys is given. */
export function exactlyOne(args: Record<string, unknown>, keys: string[]): string[] {
  const given = keys.filter((key) => args[key] !== undefined);
  return given.length === 1
    ? []
    : [`give exactly one of ${keys.join(', ')}${given.length > 1 ? ` (found ${given.join(' and ')})` : ''}`];
}
