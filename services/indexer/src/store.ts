import { ClassicLevel } from 'classic-level';
import { sha256d } from './hashes.js';
import type { Outpoint, ParsedBlock } from './parse.js';

type Db = ClassicLevel<Buffer, Buffer>;
type Op = { type: 'put'; key: Buffer; value: Buffer } | { type: 'del'; key: Buffer };

// One-letter key spaces; heights, positions and vouts are 4-byte big-endian so keys sort by them.
//   h height              -> header (80)
//   b height              -> txids of the block, concatenated
//   x height              -> undo record (JSON) of the block
//   t txid                -> height, position in block
//   o txid vout           -> script hash, value (8), height
//   u scripthash height txid vout -> value (8)        (unspent outputs)
//   s scripthash height position  -> txid            (history)
enum Space {
  Header = 0x68,
  BlockTxids = 0x62,
  Undo = 0x78,
  TxPosition = 0x74,
  Output = 0x6f,
  Unspent = 0x75,
  History = 0x73,
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}

function u64(value: bigint): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(value);
  return buffer;
}

function key(space: Space, ...parts: Buffer[]): Buffer {
  return Buffer.concat([Buffer.from([space]), ...parts]);
}

function outpointBytes(outpoint: Outpoint): Buffer {
  return Buffer.concat([outpoint.txid, u32(outpoint.vout)]);
}

/** The range of keys that start with `prefix`. */
function prefixRange(prefix: Buffer): { gte: Buffer; lt: Buffer } {
  return { gte: prefix, lt: Buffer.concat([prefix, Buffer.alloc(45, 0xff)]) };
}

export interface StoredOutput {
  scriptHash: Buffer;
  value: bigint;
  height: number;
}

export interface ConfirmedHistoryItem {
  txid: Buffer;
  height: number;
  position: number;
}

export interface UnspentOutput {
  txid: Buffer;
  vout: number;
  height: number;
  value: bigint;
}

interface UndoRecord {
  /** Outpoints (hex of txid+vout) spent by the block. */
  spent: string[];
  /** Outpoints created by the block. */
  created: string[];
  /** History rows added: script hash hex and position. */
  history: [string, number][];
}

/** What a block changed, for notifications. Script hashes in internal order, as hex. */
export interface BlockEffect {
  scriptHashes: Set<string>;
  txids: Buffer[];
}

/**
 * The index on disk (LevelDB). Each block is applied or unwound in one atomic batch, so a crash
 * leaves the index at a block boundary and a restart resumes from its tip.
 */
export class IndexStore {
  /** Headers by height, kept in memory too: a regtest chain is small, and reorg checks need them. */
  private headers: Buffer[] = [];
  private hashes: Buffer[] = [];

  private constructor(private readonly db: Db) {}

  static async open(dir: string): Promise<IndexStore> {
    const db: Db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    const store = new IndexStore(db);
    for await (const header of db.values(prefixRange(Buffer.from([Space.Header])))) {
      store.headers.push(header);
      store.hashes.push(sha256d(header));
    }
    return store;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Height of the indexed tip, -1 when empty. */
  get height(): number {
    return this.headers.length - 1;
  }

  headerAt(height: number): Buffer | undefined {
    return this.headers[height];
  }

  /** Block hash in internal order. */
  hashAt(height: number): Buffer | undefined {
    return this.hashes[height];
  }

  async applyBlock(block: ParsedBlock): Promise<BlockEffect> {
    const height = this.headers.length;
    const hHeight = u32(height);
    const ops: Op[] = [];
    const createdHere = new Map<string, StoredOutput>();
    const undo: UndoRecord = { spent: [], created: [], history: [] };
    const scriptHashes = new Set<string>();
    const historyRows = new Set<string>();
    const addHistory = (scriptHash: Buffer, position: number, txid: Buffer) => {
      const hex = scriptHash.toString('hex');
      if (historyRows.has(`${hex}:${position}`)) return;
      historyRows.add(`${hex}:${position}`);
      undo.history.push([hex, position]);
      scriptHashes.add(hex);
      ops.push({ type: 'put', key: key(Space.History, scriptHash, hHeight, u32(position)), value: txid });
    };

    for (const [position, tx] of block.txs.entries()) {
      for (const spend of tx.spends) {
        const outpoint = outpointBytes(spend);
        const spent = createdHere.get(outpoint.toString('hex')) ?? (await this.output(spend));
        if (spent === undefined) continue; // an output the index never saw (not expected on a valid chain)
        undo.spent.push(outpoint.toString('hex'));
        ops.push({ type: 'del', key: key(Space.Unspent, spent.scriptHash, u32(spent.height), outpoint) });
        addHistory(spent.scriptHash, position, tx.txid);
      }
      for (const [vout, output] of tx.outputs.entries()) {
        const outpoint = outpointBytes({ txid: tx.txid, vout });
        createdHere.set(outpoint.toString('hex'), { ...output, height });
        undo.created.push(outpoint.toString('hex'));
        ops.push({
          type: 'put',
          key: key(Space.Output, outpoint),
          value: Buffer.concat([output.scriptHash, u64(output.value), hHeight]),
        });
        ops.push({
          type: 'put',
          key: key(Space.Unspent, output.scriptHash, hHeight, outpoint),
          value: u64(output.value),
        });
        addHistory(output.scriptHash, position, tx.txid);
      }
      ops.push({ type: 'put', key: key(Space.TxPosition, tx.txid), value: Buffer.concat([hHeight, u32(position)]) });
    }
    const txids = block.txs.map((tx) => tx.txid);
    ops.push({ type: 'put', key: key(Space.BlockTxids, hHeight), value: Buffer.concat(txids) });
    ops.push({ type: 'put', key: key(Space.Undo, hHeight), value: Buffer.from(JSON.stringify(undo)) });
    ops.push({ type: 'put', key: key(Space.Header, hHeight), value: block.header });
    await this.db.batch(ops);
    this.headers.push(block.header);
    this.hashes.push(block.hash);
    return { scriptHashes, txids };
  }

  /** Removes the tip block: its transactions leave the index and the outputs it spent are unspent again. */
  async unwindTip(): Promise<BlockEffect> {
    const height = this.height;
    if (height < 0) throw new Error('the index is empty; there is no block to unwind');
    const hHeight = u32(height);
    const undoBytes = await this.db.get(key(Space.Undo, hHeight));
    if (undoBytes === undefined)
      throw new Error(`the undo record of block ${height} is missing; delete DATA_DIR to re-index`);
    const undo = JSON.parse(undoBytes.toString()) as UndoRecord;
    const txids = await this.blockTxids(height);
    const ops: Op[] = [];
    const created = new Set(undo.created);
    for (const hex of undo.created) {
      const outpoint = Buffer.from(hex, 'hex');
      const output = await this.outputByBytes(outpoint);
      ops.push({ type: 'del', key: key(Space.Output, outpoint) });
      if (output) ops.push({ type: 'del', key: key(Space.Unspent, output.scriptHash, hHeight, outpoint) });
    }
    for (const hex of undo.spent) {
      if (created.has(hex)) continue;
      const outpoint = Buffer.from(hex, 'hex');
      const output = await this.outputByBytes(outpoint);
      if (output)
        ops.push({
          type: 'put',
          key: key(Space.Unspent, output.scriptHash, u32(output.height), outpoint),
          value: u64(output.value),
        });
    }
    for (const [scriptHash, position] of undo.history) {
      ops.push({ type: 'del', key: key(Space.History, Buffer.from(scriptHash, 'hex'), hHeight, u32(position)) });
    }
    for (const txid of txids) ops.push({ type: 'del', key: key(Space.TxPosition, txid) });
    for (const space of [Space.BlockTxids, Space.Undo, Space.Header])
      ops.push({ type: 'del', key: key(space, hHeight) });
    await this.db.batch(ops);
    this.headers.pop();
    this.hashes.pop();
    return { scriptHashes: new Set(undo.history.map(([scriptHash]) => scriptHash)), txids };
  }

  output(outpoint: Outpoint): Promise<StoredOutput | undefined> {
    return this.outputByBytes(outpointBytes(outpoint));
  }

  private async outputByBytes(outpoint: Buffer): Promise<StoredOutput | undefined> {
    const value = await this.db.get(key(Space.Output, outpoint));
    if (value === undefined) return undefined;
    return { scriptHash: value.subarray(0, 32), value: value.readBigUInt64BE(32), height: value.readUInt32BE(40) };
  }

  async txPosition(txid: Buffer): Promise<{ height: number; position: number } | undefined> {
    const value = await this.db.get(key(Space.TxPosition, txid));
    return value === undefined ? undefined : { height: value.readUInt32BE(0), position: value.readUInt32BE(4) };
  }

  async blockTxids(height: number): Promise<Buffer[]> {
    const value = await this.db.get(key(Space.BlockTxids, u32(height)));
    if (value === undefined) return [];
    const txids: Buffer[] = [];
    for (let offset = 0; offset < value.length; offset += 32) txids.push(value.subarray(offset, offset + 32));
    return txids;
  }

  /** Confirmed history in chain order. */
  async history(scriptHash: Buffer): Promise<ConfirmedHistoryItem[]> {
    const items: ConfirmedHistoryItem[] = [];
    for await (const [k, txid] of this.db.iterator(prefixRange(key(Space.History, scriptHash)))) {
      items.push({ txid, height: k.readUInt32BE(33), position: k.readUInt32BE(37) });
    }
    return items;
  }

  async unspent(scriptHash: Buffer): Promise<UnspentOutput[]> {
    const items: UnspentOutput[] = [];
    for await (const [k, value] of this.db.iterator(prefixRange(key(Space.Unspent, scriptHash)))) {
      items.push({
        height: k.readUInt32BE(33),
        txid: k.subarray(37, 69),
        vout: k.readUInt32BE(69),
        value: value.readBigUInt64BE(0),
      });
    }
    return items;
  }
}
