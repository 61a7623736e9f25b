import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { ContextPart } from './types.js';

/** A build context as a tar stream made by GNU tar from several folders (nothing is copied). */
export function contextTar(parts: ContextPart[]): Readable {
  const args = ['-c', '--numeric-owner'];
  for (const part of parts) {
    for (const [from, to] of Object.entries(part.rename ?? {}))
      args.push(`--transform=s|^${escapeSed(from)}$|${to}|`, `--transform=s|^${escapeSed(from)}/|${to}/|`);
    for (const path of part.exclude ?? []) args.push(`--exclude=${path}`);
  }
  for (const part of parts) args.push('-C', part.dir, ...part.entries);
  const tar = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  tar.on('close', (code) => {
    if (code !== 0) tar.stdout.destroy(new Error(`tar of the build context failed (exit ${code}): ${stderr.trim()}`));
  });
  return tar.stdout;
}

const escapeSed = (text: string) => text.replace(/[.[\]*^$\\|]/g, '\\$&');
