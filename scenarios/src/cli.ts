// `reglab scenario run PATH... [--report junit=FILE] [--report json=FILE]`: what the CLI command
// does once it has a control plane and a lab. Every file is validated before anything runs.
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { YamlProblem } from '../../lib/yaml-problems.js';
import { loadScenarioFile, ScenarioFileError } from './load/load-scenario.js';
import type { Scenario } from './model.js';
import { formatStep, formatSummary } from './report/console.js';
import { junitXml } from './report/junit.js';
import type { RunReport } from './report/types.js';
import { runScenario } from './run/runner.js';
import type { LabApi } from './steps/lab-calls.js';

const REPORT_FORMATS = ['junit', 'json'] as const;

export interface ReportTarget {
  format: (typeof REPORT_FORMATS)[number];
  file: string;
}

export interface PreparedRun {
  scenarios: Scenario[];
  reports: ReportTarget[];
}

/** A command line that cannot run: wrong report option, missing file, or invalid scenario files. */
export class ScenarioUsageError extends Error {
  constructor(
    message: string,
    readonly problems?: YamlProblem[],
  ) {
    super(message);
    this.name = 'ScenarioUsageError';
  }
}

/** Files and folders to scenarios, and --report values to targets; every problem at once. */
export function prepareScenarioRun(paths: string[], reportOptions: string[]): PreparedRun {
  const reports = reportOptions.map(reportTarget);
  const problems: YamlProblem[] = [];
  const scenarios = scenarioFiles(paths).flatMap((file) => {
    try {
      return [loadScenarioFile(file)];
    } catch (error) {
      if (!(error instanceof ScenarioFileError)) throw error;
      problems.push(...error.problems);
      return [];
    }
  });
  if (problems.length > 0) throw new ScenarioUsageError(new ScenarioFileError(problems).message, problems);
  return { scenarios, reports };
}

function reportTarget(option: string): ReportTarget {
  const [format, ...rest] = option.split('=');
  const file = rest.join('=');
  if (!(REPORT_FORMATS as readonly string[]).includes(format) || file === '') {
    throw new ScenarioUsageError(`--report ${option}: write junit=FILE or json=FILE`);
  }
  return { format: format as ReportTarget['format'], file };
}

/** A folder stands for its *.yaml and *.yml files, in name order. */
function scenarioFiles(paths: string[]): string[] {
  return paths.flatMap((path) => {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      throw new ScenarioUsageError(`${path}: no such file or folder`);
    }
    if (!isFolder) return [path];
    const files = readdirSync(path)
      .filter((name) => /\.ya?ml$/.test(name))
      .sort()
      .map((name) => join(path, name));
    if (files.length === 0) throw new ScenarioUsageError(`${path}: the folder holds no scenario files (*.yaml)`);
    return files;
  });
}

/** Runs the scenarios one after another against the lab, printing as it goes, then writes the reports. */
export async function runScenarios(
  prepared: PreparedRun,
  options: { api: LabApi; lab: string; print?: (line: string) => void },
): Promise<RunReport> {
  const print = options.print ?? (() => undefined);
  const scenarios = [];
  for (const scenario of prepared.scenarios) {
    print(`scenario "${scenario.name}" (${scenario.file}) on lab ${options.lab}`);
    const report = await runScenario(scenario, {
      api: options.api,
      lab: options.lab,
      onStep: (step) => print(formatStep(step)),
    });
    print(`  ${formatSummary(report)}`);
    scenarios.push(report);
  }
  const run: RunReport = { lab: options.lab, passed: scenarios.every((scenario) => scenario.passed), scenarios };
  if (scenarios.length > 1)
    print(
      `${scenarios.length} scenarios: ${scenarios.filter((s) => s.passed).length} passed, ${scenarios.filter((s) => !s.passed).length} failed`,
    );
  for (const target of prepared.reports) {
    mkdirSync(dirname(target.file), { recursive: true });
    writeFileSync(target.file, target.format === 'junit' ? junitXml(run) : `${JSON.stringify(run, null, 2)}\n`);
  }
  return run;
}
