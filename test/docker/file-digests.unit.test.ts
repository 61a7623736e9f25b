import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const cache = mkdtempSync(join(tmpdir(), 'reglab-digests-'));
// unit test files share their workers' processes (npm run test:unit): the machine's cache is given back
const machineCache = process.env.REGLAB_CACHE_DIR;
process.env.REGLAB_CACHE_DIR = cache;
const { fileContent, saveFileDigests } = await import('../../control-plane/src/images/file-digests.js');

const BIG = 5 << 20;
const sha256 = (bytes: Buffer) => `sha256 ${createHash('sha256').update(bytes).digest('hex')}`;
const remembered = (file = join(cache, 'file-digests.json')) =>
  (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as Record<string, { digest: string }>;
const later = (path: string) => statSync(path).ctimeMs + 60_000;

afterAll(() => {
  if (machineCache === undefined) delete process.env.REGLAB_CACHE_DIR;
  else process.env.REGLAB_CACHE_DIR = machineCache;
  rmSync(cache, { recursive: true, force: true });
});

describe('file digests of an image pin', () => {
  it('gives a small file its bytes and a big one the SHA-256 of its bytes', () => {
    const small = join(cache, 'small');
    writeFileSync(small, 'a Containerfile');
    expect(String(fileContent(small, statSync(small)))).toBe('a Containerfile');
    const big = join(cache, 'big');
    const bytes = randomBytes(BIG);
    writeFileSync(big, bytes);
    expect(fileContent(big, statSync(big), later(big))).toBe(sha256(bytes));
  });

  it('remembers a settled big file and sees it change, even to the same size', () => {
    const binary = join(cache, 'lnd');
    writeFileSync(binary, randomBytes(BIG));
    const first = fileContent(binary, statSync(binary), later(binary));
    saveFileDigests();
    expect(`sha256 ${remembered()[binary].digest}`).toBe(first);

    const rebuilt = randomBytes(BIG);
    writeFileSync(binary, rebuilt);
    expect(fileContent(binary, statSync(binary), later(binary))).toBe(sha256(rebuilt));
  });

  it('does not remember a file written in the last seconds', () => {
    const fresh = join(cache, 'fresh');
    const bytes = randomBytes(BIG);
    writeFileSync(fresh, bytes);
    expect(fileContent(fresh, statSync(fresh))).toBe(sha256(bytes));
    saveFileDigests();
    expect(remembered()[fresh]).toBeUndefined();
  });
});
