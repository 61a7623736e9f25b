import { DomainError } from '../../../lib/errors.js';
import { formatProblem, type YamlProblem } from '../../../lib/yaml-problems.js';

export type SpecProblem = YamlProblem;

/** lab.yaml is not valid: every problem with its file, line and column. */
export class LabSpecError extends DomainError {
  constructor(readonly problems: SpecProblem[]) {
    super('invalid', 'INVALID_LAB_SPEC', problems.map(formatProblem).join('\n'), { problems });
    this.name = 'LabSpecError';
  }
}
