// The scenario_run tool: scenario files run against the lab as `reglab scenario run` runs them,
// answered with the console's lines, each scenario's outcome and the run's figures.
import { resolve } from 'node:path';
import { z } from 'zod';
import type { LabTool } from './tools.js';

export const scenarioRunTool: LabTool = {
  name: 'scenario_run',
  description:
    "Run scenario files (or every *.yaml of a folder) against the lab: payment flows, faults, load (docs/scenarios.md). Answers whether they passed, each step as the console prints it, and each scenario's figures (payments, failures by reason, durations); junit and json write those reports too",
  input: {
    paths: z.array(z.string().min(1)).min(1).describe('scenario files or folders, relative to where reglab mcp runs'),
    junit: z.string().optional().describe('also write a JUnit report to this file'),
    json: z.string().optional().describe('also write a JSON report to this file'),
  },
  async run({ api, lab, cwd }, args) {
    const { paths, junit, json } = args as { paths: string[]; junit?: string; json?: string };
    const { prepareScenarioRun, runScenarios } = await import('../../../scenarios/src/cli.js');
    const reports = [
      ...(junit === undefined ? [] : [`junit=${resolve(cwd, junit)}`]),
      ...(json === undefined ? [] : [`json=${resolve(cwd, json)}`]),
    ];
    const prepared = prepareScenarioRun(
      paths.map((path) => resolve(cwd, path)),
      reports,
    );
    const lines: string[] = [];
    const run = await runScenarios(prepared, { api, lab: lab.lab, print: (line) => lines.push(line) });
    return {
      passed: run.passed,
      console: lines.join('\n'),
      scenarios: run.scenarios.map(({ scenario, file, passed, ms, figures }) => ({
        scenario,
        file,
        passed,
        ms,
        figures,
      })),
    };
  },
};
