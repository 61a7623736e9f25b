// junitparser (PyPI), a real JUnit consumer as CI plugins use, in a venv of the lab's cache
// (installed on first use), reading a JUnit file into what it understood.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const JUNITPARSER_VERSION = '3.2.0';
const venv = join(
  process.env.REGLAB_CACHE_DIR ?? join(homedir(), '.cache', 'reglab'),
  `junitparser-venv-${JUNITPARSER_VERSION}`,
);

export interface ParsedSuite {
  name: string;
  tests: number;
  failures: number;
  skipped: number;
  errors: number;
  time: number;
  /** The suite's <property> elements, name to value. */
  properties: Record<string, string>;
  cases: {
    name: string;
    classname: string;
    time: number;
    results: { kind: string; message: string }[];
    system_out: string | null;
  }[];
}

async function junitparserPython(): Promise<string> {
  const python = join(venv, 'bin', 'python');
  if (existsSync(python)) return python;
  try {
    await run('python3', ['-m', 'venv', venv]);
    await run(join(venv, 'bin', 'pip'), ['install', '--quiet', `junitparser==${JUNITPARSER_VERSION}`], {
      timeout: 300_000,
    });
  } catch (error) {
    throw new Error(
      `this test needs junitparser: python3 -m venv ${venv} && ${venv}/bin/pip install junitparser==${JUNITPARSER_VERSION} (${(error as Error).message})`,
    );
  }
  return python;
}

export async function readJunit(file: string): Promise<ParsedSuite[]> {
  const { stdout } = await run(await junitparserPython(), [join(import.meta.dirname, 'read-junit.py'), file]);
  return JSON.parse(stdout) as ParsedSuite[];
}
