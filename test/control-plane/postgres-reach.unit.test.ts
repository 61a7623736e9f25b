// Before a lab's PostgreSQL is made as the postgres user (the control plane runs as root), the
// folder that would keep that user out of the lab's data folder is found and named.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closedAncestor } from '../../control-plane/src/nodes/postgres/server.js';

describe('closedAncestor', () => {
  const root = mkdtempSync(join(tmpdir(), 'reglab-reach-'));
  const stranger = { uid: 4_000_001, gid: 4_000_001 };
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names the first folder above the data folder that lets no other user through (a mktemp -d, /root)', () => {
    const home = join(root, 'home');
    mkdirSync(join(home, 'labs', 'default', 'services', 'postgres', 'data'), { recursive: true });
    chmodSync(root, 0o755);
    chmodSync(home, 0o700);
    expect(closedAncestor(join(home, 'labs', 'default', 'services', 'postgres', 'data'), stranger)).toBe(home);
  });

  it('finds none when every folder above lets other users through, or the user owns the closed one', () => {
    const open = join(root, 'open');
    mkdirSync(join(open, 'labs', 'data'), { recursive: true });
    chmodSync(open, 0o711);
    expect(closedAncestor(join(open, 'labs', 'data'), stranger)).toBeUndefined();
    chmodSync(open, 0o700);
    expect(closedAncestor(join(open, 'labs', 'data'), { uid: process.getuid!(), gid: 4_000_001 })).toBeUndefined();
  });
});
