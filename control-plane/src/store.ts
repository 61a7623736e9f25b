import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { LabState } from './lab/state.js';

export interface ControlPlaneData {
  labs: Record<string, LabState>;
}

/** The control plane's state file (labs, services, pids or containers, ports, credentials), via lowdb. */
export class StateStore {
  private readonly db: Low<ControlPlaneData>;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly home: string) {
    mkdirSync(home, { recursive: true });
    const file = join(home, 'state.json');
    this.db = new Low<ControlPlaneData>(new JSONFile(file), { labs: {} });
    this.file = file;
  }

  private readonly file: string;

  async load(): Promise<void> {
    await this.db.read();
  }

  get labs(): Record<string, LabState> {
    return this.db.data.labs;
  }

  labDir(name: string): string {
    return join(this.home, 'labs', name);
  }

  /** Writes are chained so two quick saves never interleave. The file holds lab secrets: 0600. */
  save(): Promise<void> {
    this.writing = this.writing.then(async () => {
      await this.db.write();
      if (existsSync(this.file)) chmodSync(this.file, 0o600);
    });
    return this.writing;
  }
}
