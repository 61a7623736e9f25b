// The rgb node's sealed keys: only the password opens them, and only the node's user can read the file.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RgbKeys } from '../../lib/rgb/types.js';
import { Keystore, WrongPasswordError } from '../../services/rgb-node/src/node/keystore.js';

const keys: RgbKeys = {
  mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  xpub: 'tpubMaster',
  accountXpubVanilla: 'tpubVanilla',
  accountXpubColored: 'tpubColored',
  masterFingerprint: '73c5da0a',
  witnessVersion: 'SegWitV0',
};

describe('rgb node keystore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rgb-keystore-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('opens with the password it was sealed with, in a file of mode 0600 that does not show the mnemonic', async () => {
    const store = new Keystore(join(dir, 'keys.json'));
    expect(store.exists()).toBe(false);
    await store.save(keys, 'correct horse');
    expect(store.exists()).toBe(true);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(store.file, 'utf8')).not.toContain('abandon');
    expect(await store.open('correct horse')).toEqual(keys);
  });

  it('refuses another password', async () => {
    const store = new Keystore(join(dir, 'other.json'));
    await store.save(keys, 'correct horse');
    await expect(store.open('correct horsE')).rejects.toBeInstanceOf(WrongPasswordError);
  });
});
