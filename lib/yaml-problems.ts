// YAML files users write (lab.yaml, scenario files) are checked before anything runs, and every
// problem names the file, line and column where it is written, with the path inside the document.
import type { ErrorObject } from 'ajv';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';

export interface YamlProblem {
  file: string;
  line: number;
  column: number;
  /** Where in the document, e.g. `channels[0].to`. */
  path: string;
  message: string;
}

export type YamlPath = (string | number)[];

/** Where a path of the document is written: a problem at that place, still without a message. */
export type Locate = (path: YamlPath) => YamlProblem;

export function formatProblem(problem: YamlProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.path || '(top level)'}: ${problem.message}`;
}

export function formatPath(path: YamlPath): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

export type ParsedYaml = { ok: true; value: unknown; locate: Locate } | { ok: false; problems: YamlProblem[] };

/** Parses YAML keeping positions; syntax errors come back as problems with their line. */
export function parseYamlWithPositions(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const locate = locator(document, lineCounter, file);
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => ({
        ...locate([]),
        ...positionOf(lineCounter, error.pos[0]),
        message: error.message.split('\n')[0],
      })),
    };
  }
  try {
    return { ok: true, value: document.toJS() ?? {}, locate };
  } catch (error) {
    // what parses but cannot become a value, e.g. an alias (*name) with no anchor (&name) before it
    return { ok: false, problems: [{ ...locate([]), message: (error as Error).message.split('\n')[0] }] };
  }
}

/** Finds where a path is written: the key itself for a mapping entry, the item for a list entry. */
function locator(document: Document, lineCounter: LineCounter, file: string): Locate {
  return (path) => {
    const last = path.at(-1);
    const parent = path.length > 0 ? document.getIn(path.slice(0, -1), true) : undefined;
    const keyNode = isMap(parent)
      ? parent.items.find((pair) => isScalar(pair.key) && pair.key.value === last)?.key
      : undefined;
    const node = (keyNode ?? document.getIn(path, true)) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0] ?? 0;
    return { file, path: formatPath(path), message: '', ...positionOf(lineCounter, offset) };
  };
}

function positionOf(lineCounter: LineCounter, offset: number) {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** The document path of an ajv error, e.g. `/steps/0/pay` -> ['steps', 0, 'pay']. */
export function pathOfError(error: ErrorObject, base: YamlPath = []): YamlPath {
  return [
    ...base,
    ...error.instancePath
      .split('/')
      .slice(1)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~'))),
  ];
}

/** oneOf and if report every branch; the branch errors say more than the summary. */
export function isUsefulSchemaError(error: ErrorObject): boolean {
  return error.keyword !== 'oneOf' && error.keyword !== 'if';
}

/**
 * One problem for one ajv error, at the line of what it is about. `describe` may word a message
 * for keywords whose generic text would not help (a name pattern, say); it returns undefined to
 * keep the generic one.
 */
export function schemaProblem(
  error: ErrorObject,
  locate: Locate,
  options: { base?: YamlPath; describe?: (error: ErrorObject, path: YamlPath) => string | undefined } = {},
): YamlProblem {
  const path = pathOfError(error, options.base);
  const worded = options.describe?.(error, path);
  if (worded !== undefined) return { ...locate(path), message: worded };
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(error.params.additionalProperty);
      return { ...locate([...path, key]), message: `unknown key "${key}"` };
    }
    case 'required':
      return { ...locate(path), message: `"${error.params.missingProperty}" is required` };
    case 'enum':
      return {
        ...locate(path),
        message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'pattern':
      return { ...locate(path), message: `does not match ${error.params.pattern}` };
    default:
      return { ...locate(path), message: error.message ?? 'is invalid' };
  }
}
