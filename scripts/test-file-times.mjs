// A vitest reporter for scripts/run-tests.mjs: how long each test file took, its hooks included (a
// lab brought up in beforeAll counts), as one JSON line per file appended to the file that
// REGLAB_TEST_FILE_TIMES_OUT names.
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class TestFileTimes {
  onInit(vitest) {
    this.root = vitest.config.root;
  }

  onTestModuleEnd(module) {
    const line = { file: relative(this.root, module.moduleId), ms: Math.round(module.diagnostic().duration) };
    appendFileSync(process.env.REGLAB_TEST_FILE_TIMES_OUT, `${JSON.stringify(line)}\n`);
  }
}
