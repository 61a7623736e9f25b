// `expect:` maps paths of a step's output to what they must be: a plain value (equals), or a
// matcher with equals, at_least, at_most, matches, one_of or exists. Amounts come as JSON numbers
// from some parts and as decimal strings from others, so whole numbers compare by value: 2500
// equals "2500".
import { PathError, select } from './json-path.js';

export const MATCHERS = ['equals', 'at_least', 'at_most', 'matches', 'one_of', 'exists'] as const;

export interface Matcher {
  equals?: unknown;
  at_least?: number | string;
  at_most?: number | string;
  matches?: string;
  one_of?: unknown[];
  exists?: boolean;
}

export type Expectations = Record<string, unknown>;

/** A matcher is an object whose keys are all matcher names; anything else is a value to equal. */
export function isMatcher(expected: unknown): expected is Matcher {
  return (
    expected !== null &&
    typeof expected === 'object' &&
    !Array.isArray(expected) &&
    Object.keys(expected).length > 0 &&
    Object.keys(expected).every((key) => (MATCHERS as readonly string[]).includes(key))
  );
}

/** What does not hold, one line each; empty when every expectation holds. */
export function unmetExpectations(output: unknown, expectations: Expectations): string[] {
  return Object.entries(expectations).flatMap(([path, expected]) => {
    const matcher: Matcher = isMatcher(expected) ? expected : { equals: expected };
    let actual: unknown;
    try {
      actual = select(output, path);
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      return matcher.exists === false ? [] : [error.message];
    }
    return unmet(actual, matcher).map((problem) => `${path} is ${show(actual)}, expected ${problem}`);
  });
}

function unmet(actual: unknown, matcher: Matcher): string[] {
  const problems: string[] = [];
  if (matcher.exists === false) problems.push('not to exist');
  if ('equals' in matcher && !sameValue(actual, matcher.equals)) problems.push(show(matcher.equals));
  if (matcher.at_least !== undefined && !(compare(actual, matcher.at_least) >= 0))
    problems.push(`at least ${matcher.at_least}`);
  if (matcher.at_most !== undefined && !(compare(actual, matcher.at_most) <= 0))
    problems.push(`at most ${matcher.at_most}`);
  if (
    matcher.matches !== undefined &&
    !new RegExp(matcher.matches).test(typeof actual === 'string' ? actual : JSON.stringify(actual))
  )
    problems.push(`to match /${matcher.matches}/`);
  if (matcher.one_of !== undefined && !matcher.one_of.some((candidate) => sameValue(actual, candidate)))
    problems.push(`one of ${show(matcher.one_of)}`);
  return problems;
}

function sameValue(actual: unknown, expected: unknown): boolean {
  const [a, b] = [asWhole(actual), asWhole(expected)];
  if (a !== undefined && b !== undefined) return a === b;
  if (Array.isArray(actual) && Array.isArray(expected))
    return actual.length === expected.length && actual.every((item, index) => sameValue(item, expected[index]));
  if (isObject(actual) && isObject(expected)) {
    const keys = Object.keys(expected);
    return (
      keys.length === Object.keys(actual).length &&
      keys.every((key) => key in actual && sameValue(actual[key], expected[key]))
    );
  }
  return actual === expected;
}

/** Negative, zero or positive as actual is below, at or above the bound; NaN when not comparable. */
function compare(actual: unknown, bound: number | string): number {
  const [a, b] = [asWhole(actual), asWhole(bound)];
  if (a !== undefined && b !== undefined) return a < b ? -1 : a > b ? 1 : 0;
  const [x, y] = [asNumber(actual), asNumber(bound)];
  return x === undefined || y === undefined ? Number.NaN : x - y;
}

function asWhole(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return undefined;
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
