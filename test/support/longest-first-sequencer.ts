// The order in which vitest starts test files: those that took longest in the last `npm test` first
// (scripts/run-tests.mjs keeps each file's time and names that record in REGLAB_TEST_FILE_TIMES),
// and before them the files it has no time of. Where several files run at once, a long file started
// last would keep the run going alone after the others are done.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export class LongestFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const times = lastTimes();
    // vitest's own order (its last run's times in node_modules, or the largest files first)
    if (!times) return super.sort(files);
    const timeOf = (file: TestSpecification) =>
      times[relative(this.ctx.config.root, file.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => Math.sign(timeOf(b) - timeOf(a)) || 0);
  }
}

/** Each file's time in the last run (ms, by path from the project's folder), if there is a record. */
function lastTimes(): Record<string, number> | undefined {
  const record = process.env.REGLAB_TEST_FILE_TIMES;
  if (!record) return undefined;
  try {
    return JSON.parse(readFileSync(record, 'utf8'));
  } catch {
    return undefined;
  }
}
