// What a node records about itself beside its sealed keys (DATA_DIR/node.json): its network, its
// public key and when it was initialised. Readable without the password.
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { getPublicKey } from '@noble/secp256k1';

export interface NodeRecord {
  network: 'regtest';
  pubkey: string;
  initialized_at: string;
}

/**
 * The node's stable public key (RLN's /nodeinfo pubkey), derived from its mnemonic so a node
 * restored from the same words has the same key. This node signs nothing with it: it has no
 * Lightning side to identify itself to.
 */
export function nodePubkey(mnemonic: string): string {
  const secret = createHmac('sha256', 'reglab rgb-node identity').update(mnemonic.normalize('NFKD')).digest();
  return Buffer.from(getPublicKey(secret, true)).toString('hex');
}

export function readNodeRecord(file: string): NodeRecord | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as NodeRecord) : undefined;
}

export function writeNodeRecord(file: string, record: NodeRecord): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
