// Reads a scenario file and checks all of it before anything runs: its shape, every action and
// its arguments, paths, matchers, durations, and that every `${variable}` is defined by `vars:`,
// a built-in or the `save:` of an earlier step. Every problem is reported at once, each with the
// file, line and column where it is written.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import {
  formatProblem,
  isUsefulSchemaError,
  parseYamlWithPositions,
  schemaProblem,
  type Locate,
  type YamlPath,
  type YamlProblem,
} from '../../../lib/yaml-problems.js';
import { durationMs } from '../language/durations.js';
import { isMatcher, MATCHERS, type Expectations } from '../language/expectations.js';
import { parsePath, PathError } from '../language/json-path.js';
import { hasTemplate, referencedNames, TemplateError } from '../language/templates.js';
import type { ErrorExpectation, RetryPolicy, Scenario, Step } from '../model.js';
import { STEP_KINDS } from '../steps/index.js';
import type { AnyStepKind } from '../steps/kind.js';
import { isLegacyExpectStep, translateLegacyExpect } from './legacy.js';
import { BUILT_IN_VARIABLES, ENVELOPE_KEYS, legacyExpectSchema, scenarioSchema, stepEnvelopeSchema } from './schema.js';

export const DEFAULT_STEP_TIMEOUT_MS = 120_000;
const DEFAULT_RETRY_INTERVAL_MS = 1_000;

export class ScenarioFileError extends Error {
  constructor(readonly problems: YamlProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ScenarioFileError';
  }
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validateScenario = ajv.compile(scenarioSchema);
const validateEnvelope = ajv.compile(stepEnvelopeSchema);
const validateLegacyExpect = ajv.compile(legacyExpectSchema);
const argumentValidators = new WeakMap<AnyStepKind, ValidateFunction>();

/** The compiled schema of a kind's arguments (compiled once). */
export function argumentValidator(kind: AnyStepKind): ValidateFunction {
  let validate = argumentValidators.get(kind);
  if (!validate) argumentValidators.set(kind, (validate = ajv.compile(kind.args)));
  return validate;
}

export function loadScenarioFile(file: string, kinds: readonly AnyStepKind[] = STEP_KINDS): Scenario {
  return parseScenario(readFileSync(file, 'utf8'), file, kinds);
}

export function parseScenario(text: string, file: string, kinds: readonly AnyStepKind[] = STEP_KINDS): Scenario {
  const parsed = parseYamlWithPositions(text, file);
  // after the first syntax error the parser mostly reports its consequences
  if (!parsed.ok) throw new ScenarioFileError(parsed.problems.slice(0, 1));
  const raw = parsed.value as Record<string, unknown>;
  if (!validateScenario(raw)) {
    throw new ScenarioFileError(schemaProblems(validateScenario.errors, parsed.locate));
  }
  const checker = new ScenarioChecker(parsed.locate, new Map(kinds.map((kind) => [kind.name, kind])));
  const scenario = checker.scenario(raw, file);
  if (checker.problems.length > 0) throw new ScenarioFileError(checker.problems);
  return scenario;
}

function schemaProblems(errors: ErrorObject[] | null | undefined, locate: Locate, base: YamlPath = []): YamlProblem[] {
  return (errors ?? []).filter(isUsefulSchemaError).map((error) => schemaProblem(error, locate, { base }));
}

type RawStep = Record<string, unknown>;

class ScenarioChecker {
  readonly problems: YamlProblem[] = [];
  private defaultTimeoutMs = DEFAULT_STEP_TIMEOUT_MS;

  constructor(
    private readonly locate: Locate,
    private readonly kinds: Map<string, AnyStepKind>,
  ) {}

  scenario(raw: Record<string, unknown>, file: string): Scenario {
    this.defaultTimeoutMs = this.duration(raw.timeout, ['timeout']) ?? DEFAULT_STEP_TIMEOUT_MS;
    const vars = (raw.vars ?? {}) as Record<string, unknown>;
    const defined = new Set<string>(['run', 'lab']);
    for (const [name, value] of Object.entries(vars)) {
      if (this.isBuiltIn(name, ['vars', name])) continue;
      this.checkTemplates(value, ['vars', name], defined);
      defined.add(name);
    }
    const steps = this.steps(raw.steps as RawStep[], ['steps'], 1, defined);
    const cleanup = this.steps((raw.finally ?? []) as RawStep[], ['finally'], steps.length + 1, defined);
    return { file, name: raw.name as string, vars, steps, cleanup };
  }

  /** Steps run one after another: each sees what the steps before it saved. */
  private steps(raws: RawStep[], path: YamlPath, firstNumber: number, defined: Set<string>): Step[] {
    return raws.map((raw, index) => {
      const step = this.step(raw, [...path, index], String(firstNumber + index), defined);
      Object.keys(step.save).forEach((name) => defined.add(name));
      return step;
    });
  }

  private step(given: RawStep, path: YamlPath, id: string, defined: Set<string>): Step {
    const raw = isLegacyExpectStep(given) ? this.legacyExpect(given, path) : given;
    if (!validateEnvelope(raw)) this.problems.push(...schemaProblems(validateEnvelope.errors, this.locate, path));
    const actions = Object.keys(raw).filter((key) => !ENVELOPE_KEYS.includes(key));
    const common = {
      id,
      line: this.locate(path).line,
      retry: this.retry(raw.retry, [...path, 'retry']),
      save: this.save(raw.save, [...path, 'save'], defined),
      expect: this.expectations(raw.expect, [...path, 'expect'], defined),
      expectError: this.expectError(raw.expect_error),
    };
    if (Array.isArray(raw.parallel)) {
      if (actions.length > 0)
        this.problem(
          [...path, actions[0]],
          `a parallel group has no action of its own: move "${actions[0]}" into the group's list`,
        );
      if (raw.repeat !== undefined)
        this.problem([...path, 'repeat'], 'repeat goes on an action, not on a parallel group');
      if (raw.expect_error !== undefined)
        this.problem(
          [...path, 'expect_error'],
          "a parallel group counts its steps' failures: expect { $.failed: N } instead of expect_error",
        );
      const children = (raw.parallel as RawStep[]).map((child, index) =>
        this.step(child, [...path, 'parallel', index], `${id}.${index + 1}`, new Set(defined)),
      );
      children.forEach((child) => Object.keys(child.save).forEach((name) => defined.add(name)));
      const timeoutMs = this.duration(raw.timeout, [...path, 'timeout']) ?? Number.POSITIVE_INFINITY;
      return {
        ...common,
        type: 'parallel',
        label: (raw.name as string | undefined) ?? `parallel (${children.length} steps)`,
        timeoutMs,
        steps: children,
      };
    }
    if (raw.repeat !== undefined && raw.expect_error !== undefined)
      this.problem(
        [...path, 'expect_error'],
        'a repeated step counts its failures: expect { $.failed: N } instead of expect_error',
      );
    const kind = this.action(actions, path);
    const args = (raw[kind?.name ?? ''] ?? {}) as Record<string, unknown>;
    if (kind) this.checkArguments(kind, args, [...path, kind.name], defined, raw.repeat !== undefined);
    return {
      ...common,
      type: 'action',
      kind: kind?.name ?? '',
      args,
      label: (raw.name as string | undefined) ?? describeAction(kind?.name ?? '?', args),
      timeoutMs: this.duration(raw.timeout, [...path, 'timeout']) ?? this.defaultTimeoutMs,
      repeat:
        raw.repeat === undefined
          ? undefined
          : { concurrency: 1, ...(raw.repeat as { count: number; concurrency?: number }) },
    };
  }

  private legacyExpect(raw: RawStep, path: YamlPath): RawStep {
    if (!validateLegacyExpect(raw.expect))
      this.problems.push(...schemaProblems(validateLegacyExpect.errors, this.locate, [...path, 'expect']));
    return translateLegacyExpect(raw);
  }

  /** The one action of a step. */
  private action(actions: string[], path: YamlPath): AnyStepKind | undefined {
    if (actions.length === 0) {
      this.problem(path, `a step needs an action (${[...this.kinds.keys()].join(', ')}) or a parallel: list`);
      return undefined;
    }
    if (actions.length > 1)
      this.problem(
        [...path, actions[1]],
        `one action per step: "${actions[0]}" and "${actions[1]}" are two; write them as two steps`,
      );
    const kind = this.kinds.get(actions[0]);
    if (!kind) this.problem([...path, actions[0]], unknownAction(actions[0], [...this.kinds.keys()]));
    return kind;
  }

  private checkArguments(
    kind: AnyStepKind,
    args: unknown,
    path: YamlPath,
    defined: Set<string>,
    repeated: boolean,
  ): void {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      this.problem(path, `the arguments of ${kind.name} are a mapping (e.g. ${kind.name}: { ... }); ${kind.summary}`);
      return;
    }
    const validate = argumentValidator(kind);
    // a value written as ${...} is checked once it is filled in, when the step runs
    if (!validate(args))
      this.problems.push(
        ...schemaProblems(
          validate.errors?.filter((error) => !hasTemplate(valueAt(args, error.instancePath))),
          this.locate,
          path,
        ),
      );
    for (const message of kind.check?.(args) ?? []) this.problem(path, message);
    this.checkTemplates(args, path, repeated ? new Set([...defined, 'repeat']) : defined);
  }

  private save(raw: unknown, path: YamlPath, defined: Set<string>): Record<string, string> {
    const save = (raw ?? {}) as Record<string, string>;
    for (const [name, source] of Object.entries(save)) {
      if (this.isBuiltIn(name, [...path, name])) continue;
      if (hasTemplate(source)) this.checkTemplates(source, [...path, name], defined);
      else this.path(source, [...path, name]);
    }
    return save;
  }

  private expectations(raw: unknown, path: YamlPath, defined: Set<string>): Expectations | undefined {
    if (raw === undefined || raw === null || typeof raw !== 'object') return undefined;
    for (const [key, expected] of Object.entries(raw)) {
      // a path with ${...} in it is read once they are filled in (so are those of save:)
      if (hasTemplate(key)) this.checkTemplates(key, [...path, key], defined);
      else this.path(key, [...path, key]);
      if (expected !== null && typeof expected === 'object' && !Array.isArray(expected) && !isMatcher(expected)) {
        this.problem(
          [...path, key],
          `${Object.keys(expected).length === 0 ? 'an empty mapping' : `"${Object.keys(expected).find((k) => !(MATCHERS as readonly string[]).includes(k))}"`} is not a matcher (${MATCHERS.join(', ')}); to compare a whole object write { equals: {...} }`,
        );
      } else if (isMatcher(expected)) this.matcher(expected as Record<string, unknown>, [...path, key]);
      this.checkTemplates(expected, [...path, key], defined);
    }
    return raw as Expectations;
  }

  private matcher(matcher: Record<string, unknown>, path: YamlPath): void {
    for (const bound of ['at_least', 'at_most'] as const) {
      const value = matcher[bound];
      if (
        value !== undefined &&
        typeof value !== 'number' &&
        !hasTemplate(value) &&
        !(typeof value === 'string' && /^-?\d+$/.test(value))
      ) {
        this.problem([...path, bound], `${bound} is a number (or \${...}), not ${JSON.stringify(value)}`);
      }
    }
    if (matcher.matches !== undefined) {
      try {
        new RegExp(String(matcher.matches));
      } catch (error) {
        this.problem([...path, 'matches'], `not a regular expression: ${(error as Error).message}`);
      }
    }
    if (matcher.one_of !== undefined && !Array.isArray(matcher.one_of))
      this.problem([...path, 'one_of'], 'one_of is a list of the values allowed');
    if (matcher.exists !== undefined && typeof matcher.exists !== 'boolean')
      this.problem([...path, 'exists'], 'exists is true or false');
  }

  private expectError(raw: unknown): ErrorExpectation | undefined {
    if (typeof raw === 'string') return { message: raw };
    return raw !== null && typeof raw === 'object' ? (raw as ErrorExpectation) : undefined;
  }

  private retry(raw: unknown, path: YamlPath): RetryPolicy | undefined {
    if (raw === null || typeof raw !== 'object') return undefined;
    const retry = raw as { attempts?: number; for?: number | string; interval?: number | string };
    if (retry.attempts === undefined && retry.for === undefined)
      this.problem(path, 'say how long to keep trying: attempts: N, for: 30s, or both');
    return {
      attempts: retry.attempts,
      forMs: this.duration(retry.for, [...path, 'for']),
      intervalMs: this.duration(retry.interval, [...path, 'interval']) ?? DEFAULT_RETRY_INTERVAL_MS,
    };
  }

  private duration(raw: unknown, path: YamlPath): number | undefined {
    if (raw === undefined) return undefined;
    const ms = durationMs(raw);
    if (ms !== undefined) return ms;
    this.problem(path, `${JSON.stringify(raw)} is not a duration: write 500ms, 30s, 2m or a number of seconds`);
    return undefined;
  }

  private path(source: unknown, at: YamlPath): void {
    try {
      parsePath(String(source));
    } catch (error) {
      if (!(error instanceof PathError)) throw error;
      this.problem(at, error.message);
    }
  }

  /** Every `${...}` in a value reads, and names a variable defined by then. */
  private checkTemplates(value: unknown, path: YamlPath, defined: Set<string>): void {
    if (typeof value === 'string') {
      try {
        const missing = referencedNames(value).filter((name) => !defined.has(name));
        if (missing.length > 0)
          this.problem(
            path,
            `no variable "${missing[0]}" is defined here (${describeDefined(defined)}); vars: or an earlier step's save: defines one`,
          );
      } catch (error) {
        if (!(error instanceof TemplateError || error instanceof PathError)) throw error;
        this.problem(path, error.message);
      }
    } else if (Array.isArray(value))
      value.forEach((item, index) => this.checkTemplates(item, [...path, index], defined));
    else if (value !== null && typeof value === 'object')
      Object.entries(value).forEach(([key, item]) => this.checkTemplates(item, [...path, key], defined));
  }

  private isBuiltIn(name: string, path: YamlPath): boolean {
    if (!(BUILT_IN_VARIABLES as readonly string[]).includes(name)) return false;
    this.problem(path, `"${name}" is a built-in variable (${BUILT_IN_VARIABLES.join(', ')}); choose another name`);
    return true;
  }

  private problem(path: YamlPath, message: string): void {
    this.problems.push({ ...this.locate(path), message });
  }
}

function valueAt(value: unknown, instancePath: string): unknown {
  return instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (current, key) => (current as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      value,
    );
}

function describeDefined(defined: Set<string>): string {
  const names = [...defined].filter((name) => !(BUILT_IN_VARIABLES as readonly string[]).includes(name));
  return names.length > 0 ? `defined so far: ${names.join(', ')}` : 'none is defined so far besides run.id and lab';
}

export function describeAction(kind: string, args: unknown): string {
  const text = JSON.stringify(args ?? {});
  return `${kind} ${text.length > 100 ? `${text.slice(0, 99)}…` : text}`;
}

function unknownAction(name: string, known: string[]): string {
  const close = known.filter((candidate) => editDistance(candidate, name) <= 2 || candidate.endsWith(`.${name}`));
  return close.length > 0
    ? `unknown step "${name}": did you mean ${close.map((c) => `"${c}"`).join(' or ')}?`
    : `unknown step "${name}" (steps: ${known.join(', ')})`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
