// `${...}` in scenario values: a variable (`${invoice}`), a value inside one (`${wallet.id}`,
// `${node.channels[0].localSat}`), or whole-number arithmetic with + and - (`${before + 1000}`).
// A string that is one `${...}` and nothing else takes the value's own type (a number stays a
// number, an object an object); inside longer text the value is written out.
import { parsePath, PathError, select } from './json-path.js';

const TEMPLATE = /\$\{([^}]*)\}/g;
const REFERENCE = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\]]*\])*/;

type Term = { reference: string; root: string } | { integer: bigint };
interface Expression {
  terms: Term[];
  /** The operator before each term after the first. */
  operators: ('+' | '-')[];
}

export class TemplateError extends Error {}

/** Looks a variable up by name; undefined when there is none. */
export type Lookup = (name: string) => unknown;

export function hasTemplate(value: unknown): value is string {
  return typeof value === 'string' && value.includes('${');
}

/** The variable names a text refers to; throws on a `${...}` that cannot be read. */
export function referencedNames(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].flatMap((match) =>
    parseExpression(match[1]).terms.flatMap((term) => ('root' in term ? [term.root] : [])),
  );
}

/** Replaces every `${...}` in the strings of a value (object keys are left alone). */
export function interpolate(value: unknown, lookup: Lookup): unknown {
  if (typeof value === 'string') return interpolateText(value, lookup);
  if (Array.isArray(value)) return value.map((item) => interpolate(item, lookup));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, lookup)]));
  }
  return value;
}

function interpolateText(text: string, lookup: Lookup): unknown {
  const whole = /^\$\{([^}]*)\}$/.exec(text);
  if (whole) return evaluate(parseExpression(whole[1]), lookup);
  return text.replace(TEMPLATE, (_match, source: string) => {
    const value = evaluate(parseExpression(source), lookup);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function parseExpression(source: string): Expression {
  const terms: Term[] = [];
  const operators: ('+' | '-')[] = [];
  let rest = source.trim();
  if (rest === '') throw new TemplateError('"${}" names no variable');
  for (;;) {
    const integer = /^\d+/.exec(rest);
    const reference = integer ? null : REFERENCE.exec(rest);
    if (integer) terms.push({ integer: BigInt(integer[0]) });
    else if (reference) {
      const root = /^[A-Za-z_]\w*/.exec(reference[0])![0];
      parsePath(`$.${reference[0]}`);
      terms.push({ reference: reference[0], root });
    } else
      throw new TemplateError(`cannot read "${rest}" in "\${${source}}" (expected a variable name or a whole number)`);
    rest = rest.slice((integer ?? reference)![0].length).trim();
    if (rest === '') return { terms, operators };
    if (rest[0] !== '+' && rest[0] !== '-')
      throw new TemplateError(`cannot read "${rest}" in "\${${source}}" (only + and - may join values)`);
    operators.push(rest[0] as '+' | '-');
    rest = rest.slice(1).trim();
  }
}

function evaluate(expression: Expression, lookup: Lookup): unknown {
  const values = expression.terms.map((term) => ('integer' in term ? term.integer : resolve(term, lookup)));
  if (values.length === 1) return typeof values[0] === 'bigint' ? toNumberOrText(values[0]) : values[0];
  const total = values
    .slice(1)
    .reduce<bigint>(
      (sum, value, index) =>
        expression.operators[index] === '+' ? sum + wholeNumber(value) : sum - wholeNumber(value),
      wholeNumber(values[0]),
    );
  return toNumberOrText(total);
}

function resolve(term: { reference: string; root: string }, lookup: Lookup): unknown {
  const value = lookup(term.root);
  if (value === undefined) throw new TemplateError(`no variable "${term.root}"`);
  try {
    return select(value, `$${term.reference.slice(term.root.length)}`);
  } catch (error) {
    if (error instanceof PathError)
      throw new TemplateError(`\${${term.reference}}: ${error.message.replace(/^\$/, term.root)}`);
    throw error;
  }
}

/** A whole number from a JSON number or a decimal string (amounts come as both). */
function wholeNumber(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new TemplateError(`${JSON.stringify(value)} is not a whole number, so it cannot be added or subtracted`);
}

function toNumberOrText(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}
