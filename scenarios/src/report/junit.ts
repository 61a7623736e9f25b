// JUnit XML, as CI systems read it: a <testsuite> per scenario, a <testcase> per step (the steps
// of a parallel group too) with its time in seconds, a <failure> with the reason, <skipped> for
// steps not run, and the step's output in <system-out>; the run's figures (durations, steps,
// payments) as the suite's <properties>.
import { figureProperties } from './figures.js';
import type { RunReport, ScenarioReport, StepReport } from './types.js';
import { flattenSteps } from './types.js';

/** Longest output kept in <system-out>, so a report stays readable. */
const MAX_OUTPUT_CHARS = 16_000;

export function junitXml(run: RunReport): string {
  const suites = run.scenarios.map(testSuite);
  const all = run.scenarios.flatMap((scenario) => flattenSteps(scenario.steps));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="reglab scenarios" tests="${all.length}" failures="${countOf(all, 'failed')}" errors="0" skipped="${countOf(all, 'skipped')}" time="${seconds(run.scenarios.reduce((sum, s) => sum + s.ms, 0))}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function testSuite(scenario: ScenarioReport): string {
  const steps = flattenSteps(scenario.steps);
  return [
    `  <testsuite name="${attribute(scenario.scenario)}" tests="${steps.length}" failures="${countOf(steps, 'failed')}" errors="0" skipped="${countOf(steps, 'skipped')}" time="${seconds(scenario.ms)}" timestamp="${scenario.startedAt.replace(/\.\d+Z$/, '')}" file="${attribute(scenario.file)}">`,
    '    <properties>',
    `      <property name="lab" value="${attribute(scenario.lab)}"/>`,
    ...figureProperties(scenario.figures).map(
      ([name, value]) => `      <property name="${attribute(name)}" value="${value}"/>`,
    ),
    '    </properties>',
    ...steps.map((step) => testCase(scenario, step)),
    '  </testsuite>',
  ].join('\n');
}

function testCase(scenario: ScenarioReport, step: StepReport): string {
  const open = `    <testcase name="${attribute(`${step.id}. ${step.label}`)}" classname="${attribute(scenario.scenario)}" time="${seconds(step.ms)}" file="${attribute(scenario.file)}" line="${step.line}">`;
  const body: string[] = [];
  if (step.status === 'failed')
    body.push(
      `      <failure message="${attribute(firstLine(step.error ?? 'failed'))}" type="${attribute(step.kind)}">${text(step.error ?? '')}</failure>`,
    );
  if (step.status === 'skipped') body.push(`      <skipped message="${attribute(step.error ?? 'not run')}"/>`);
  if (step.output !== undefined) body.push(`      <system-out>${text(outputText(step.output))}</system-out>`);
  return [open, ...body, '    </testcase>'].join('\n');
}

function outputText(output: unknown): string {
  const json = JSON.stringify(output, null, 2) ?? String(output);
  return json.length > MAX_OUTPUT_CHARS
    ? `${json.slice(0, MAX_OUTPUT_CHARS)}\n… (${json.length - MAX_OUTPUT_CHARS} more characters)`
    : json;
}

function countOf(steps: StepReport[], status: StepReport['status']): number {
  return steps.filter((step) => step.status === status).length;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}

/** XML 1.0 cannot hold most control characters, even escaped; they are dropped. */
function text(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
