// The problems a lab.yaml is refused with, for the spec's unit tests.
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { LabSpecError } from '../../control-plane/src/spec/spec-error.js';

/** What parseLabSpec refuses `text` for; fails when it accepts it. */
export function labSpecProblems(text: string, file: string): LabSpecError['problems'] {
  try {
    parseLabSpec(text, file);
  } catch (error) {
    if (error instanceof LabSpecError) return error.problems;
    throw error;
  }
  throw new Error('expected the lab spec to be rejected');
}

/** The same, each problem as its line, path and message. */
export const problemLines = (text: string, file: string) =>
  labSpecProblems(text, file).map(({ line, path, message }) => ({ line, path, message }));
