// `reglab serve --up FILE`: a control plane that brings its lab up by itself, once (in a cluster,
// from its ConfigMap: docs/kubernetes-runtime.md). Its state folder records that it did, so that
// started again (its pod deleted, its node drained) it takes the lab back from its state, and a lab
// taken down since (`reglab down`) stays down rather than come back as a new lab with a new chain.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabManager } from './manager.js';
import { parseLabSpec } from './spec/parse.js';

export interface LabAtStart {
  file: string;
  text: string;
  name: string;
}

/** The file, in the state folder, of the labs brought up at a start: name -> when. */
export const LABS_AT_START_FILE = 'labs-at-start.json';

/** lab.yaml, read and checked before the control plane starts: an invalid one stops it, with the problems. */
export function readLabAtStart(file: string): LabAtStart {
  const text = readFileSync(file, 'utf8');
  return { file, text, name: parseLabSpec(text, file).name };
}

function broughtUp(file: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Brings the lab up unless this state folder holds it, or did once; answers what it did, for the log. */
export async function upAtStart(manager: LabManager, lab: LabAtStart): Promise<string> {
  const record = join(manager.home, LABS_AT_START_FILE);
  const known = manager.list().find((candidate) => candidate.name === lab.name);
  if (known)
    return `lab ${lab.name} is in this control plane's state (${known.status}): taken back, not brought up again`;
  const labs = broughtUp(record);
  if (labs[lab.name])
    return `lab ${lab.name} was brought up from ${lab.file} at ${labs[lab.name]}, and taken down since: it stays down (\`reglab up\` brings it up again)`;
  await manager.create(lab.text, lab.file);
  writeFileSync(record, JSON.stringify({ ...labs, [lab.name]: new Date().toISOString() }, null, 2));
  return `bringing lab ${lab.name} up from ${lab.file}`;
}
