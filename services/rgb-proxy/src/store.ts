// The proxy's data on disk: uploaded files by content (files/<sha256>) and an append-only index
// (index.jsonl) of what was posted under which id. Nothing is ever changed once written: a
// consignment, a media file and an ACK are each set once, which is what the protocol promises.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredConsignment {
  fileDigest: string;
  txid: string;
  vout?: number;
  /** null until the recipient answers. */
  ack: boolean | null;
}

type IndexLine =
  | { kind: 'consignment'; recipientId: string; fileDigest: string; txid: string; vout?: number }
  | { kind: 'media'; attachmentId: string; fileDigest: string }
  | { kind: 'ack'; recipientId: string; ack: boolean };

/** What a write did: stored it, found exactly it there already, or found something else there. */
export type WriteOutcome = 'stored' | 'unchanged' | 'conflict';

export class ProxyStore {
  private readonly consignments = new Map<string, StoredConsignment>();
  private readonly media = new Map<string, string>();
  /** Writes one after another, so a check and the line it leads to are never interleaved. */
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(private readonly dir: string) {}

  static async open(dir: string): Promise<ProxyStore> {
    await mkdir(join(dir, 'files'), { recursive: true });
    const store = new ProxyStore(dir);
    const index = store.indexPath;
    if (existsSync(index)) {
      const text = await readFile(index, 'utf8');
      for (const line of text.split('\n')) {
        const parsed = parseLine(line);
        if (parsed) store.apply(parsed);
      }
      // A line cut short by a crash was never acknowledged to a client; end it so the next line
      // starts on its own.
      if (text !== '' && !text.endsWith('\n')) await appendFile(index, '\n');
    }
    return store;
  }

  private get indexPath(): string {
    return join(this.dir, 'index.jsonl');
  }

  consignment(recipientId: string): StoredConsignment | undefined {
    return this.consignments.get(recipientId);
  }

  mediaDigest(attachmentId: string): string | undefined {
    return this.media.get(attachmentId);
  }

  readFile(digest: string): Promise<Buffer> {
    return readFile(join(this.dir, 'files', digest));
  }

  get counts(): { consignments: number; media: number } {
    return { consignments: this.consignments.size, media: this.media.size };
  }

  putConsignment(recipientId: string, file: Buffer, txid: string, vout: number | undefined): Promise<WriteOutcome> {
    return this.write(file, (fileDigest) => {
      const existing = this.consignments.get(recipientId);
      if (existing) return existing.fileDigest === fileDigest ? 'unchanged' : 'conflict';
      return { kind: 'consignment', recipientId, fileDigest, txid, ...(vout === undefined ? {} : { vout }) };
    });
  }

  putMedia(attachmentId: string, file: Buffer): Promise<WriteOutcome> {
    return this.write(file, (fileDigest) => {
      const existing = this.media.get(attachmentId);
      if (existing) return existing === fileDigest ? 'unchanged' : 'conflict';
      return { kind: 'media', attachmentId, fileDigest };
    });
  }

  /** Callers check first that the consignment exists. */
  setAck(recipientId: string, ack: boolean): Promise<WriteOutcome> {
    return this.write(undefined, () => {
      const existing = this.consignments.get(recipientId)!.ack;
      if (existing !== null) return existing === ack ? 'unchanged' : 'conflict';
      return { kind: 'ack', recipientId, ack };
    });
  }

  /** Saves `file` (if any) under its digest, then appends the line `decide` asks for. */
  private write(
    file: Buffer | undefined,
    decide: (fileDigest: string) => IndexLine | 'unchanged' | 'conflict',
  ): Promise<WriteOutcome> {
    const run = async (): Promise<WriteOutcome> => {
      const fileDigest = file ? createHash('sha256').update(file).digest('hex') : '';
      const decision = decide(fileDigest);
      if (typeof decision === 'string') return decision;
      if (file) await this.saveFile(fileDigest, file);
      await appendFile(this.indexPath, `${JSON.stringify(decision)}\n`);
      this.apply(decision);
      return 'stored';
    };
    const result = this.writing.then(run, run);
    this.writing = result.catch(() => undefined);
    return result;
  }

  private async saveFile(digest: string, file: Buffer): Promise<void> {
    const path = join(this.dir, 'files', digest);
    if (existsSync(path)) return;
    const partial = `${path}.partial`;
    await writeFile(partial, file);
    await rename(partial, path);
  }

  private apply(line: IndexLine): void {
    if (line.kind === 'consignment') {
      this.consignments.set(line.recipientId, {
        fileDigest: line.fileDigest,
        txid: line.txid,
        ...(line.vout === undefined ? {} : { vout: line.vout }),
        ack: null,
      });
    } else if (line.kind === 'media') {
      this.media.set(line.attachmentId, line.fileDigest);
    } else {
      const consignment = this.consignments.get(line.recipientId);
      if (consignment) consignment.ack = line.ack;
    }
  }
}

function parseLine(line: string): IndexLine | undefined {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line) as IndexLine;
  } catch {
    return undefined;
  }
}
