// The node's keys on disk: encrypted with the node's password (scrypt, then AES-256-GCM) in a file
// only the node's user can read (0600). A wrong password is recognised by the failed GCM check.
import { createCipheriv, createDecipheriv, randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { RgbKeys } from '../../../../lib/rgb/types.js';

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

interface SealedKeys {
  version: 1;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
  iv: string;
  tag: string;
  ciphertext: string;
}

export class WrongPasswordError extends Error {
  constructor() {
    super('the password does not open the keys');
    this.name = 'WrongPasswordError';
  }
}

const deriveKey = (password: string, salt: Buffer, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, 32, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

export class Keystore {
  constructor(readonly file: string) {}

  exists(): boolean {
    return existsSync(this.file);
  }

  /** Writes the keys sealed with `password` (through a temporary file, so a crash leaves no half file). */
  async save(keys: RgbKeys, password: string): Promise<void> {
    const salt = randomBytes(16);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await deriveKey(password, salt, SCRYPT), iv);
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(keys), 'utf8'), cipher.final()]);
    const sealed: SealedKeys = {
      version: 1,
      kdf: { name: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('base64') },
      cipher: 'aes-256-gcm',
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    };
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(sealed), { mode: 0o600 });
    renameSync(temporary, this.file);
  }

  /** The keys, or WrongPasswordError. */
  async open(password: string): Promise<RgbKeys> {
    const sealed = JSON.parse(readFileSync(this.file, 'utf8')) as SealedKeys;
    const { N, r, p, salt } = sealed.kdf;
    const key = await deriveKey(password, Buffer.from(salt, 'base64'), { N, r, p, maxmem: SCRYPT.maxmem });
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    try {
      return JSON.parse(
        Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8'),
      ) as RgbKeys;
    } catch {
      throw new WrongPasswordError();
    }
  }
}
