import type { ErrorObject } from 'ajv';

// Path, query and header values arrive as text, and Ajv's coercion reads a number out of text as
// JavaScript does (`x == +x`): blank text is 0, "0x10" is 16, " 5 " is 5, "1e3" is 1000. A value its
// schema calls a number must be written as one.
const WRITTEN = {
  integer: /^-?\d+$/,
  number: /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/,
} as const;

type Written = keyof typeof WRITTEN;

interface PropertySchema {
  type?: string | string[];
}

/** The number type a property's schema asks for, when it takes no text. */
function numberType(property: PropertySchema | undefined): Written | undefined {
  const types = [property?.type ?? []].flat();
  if (types.includes('string')) return undefined;
  return types.includes('integer') ? 'integer' : types.includes('number') ? 'number' : undefined;
}

/** Ajv's errors for the values of `data` (text, or lists of text) that `schema` calls numbers and that are not written as numbers. */
export function numbersNotWritten(schema: unknown, data: unknown): ErrorObject[] | undefined {
  const properties = (schema as { properties?: Record<string, PropertySchema> } | undefined)?.properties;
  if (!properties || typeof data !== 'object' || data === null) return undefined;
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    const type = numberType(properties[name]);
    if (type === undefined) continue;
    const wrong = [value].flat().find((text) => typeof text === 'string' && !WRITTEN[type].test(text));
    if (wrong !== undefined)
      return [
        {
          instancePath: `/${name}`,
          schemaPath: `#/properties/${name}/type`,
          keyword: 'type',
          params: { type },
          message: `must be ${type === 'integer' ? 'an integer in digits' : 'a number in digits'}, not ${shown(wrong as string)}`,
        },
      ];
  }
  return undefined;
}

/** Text as a JSON string, with what is not printable ASCII written as \uXXXX (a no-break space is not a space). */
function shown(text: string): string {
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
