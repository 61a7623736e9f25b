import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A copy of a credential in the lab's folder, readable by its owner only. */
export function writeCredentialFile(file: string, content: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content, { mode: 0o600 });
}
