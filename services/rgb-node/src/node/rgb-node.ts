// One RGB node's life, as RLN's: not initialised until /init seals its keys; locked until /unlock
// opens the wallet and goes online; "changing state" while either runs (every other call is then
// refused, as RLN does); unlocked until /lock or the process ends. Restarting keeps the wallet
// (DATA_DIR) and starts locked.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateRgbKeys, restoreRgbKeys } from '../../../../lib/rgb/keys.js';
import type { RgbKeys } from '../../../../lib/rgb/types.js';
import { RgbWallet } from '../../../../lib/rgb/wallet.js';
import {
  alreadyInitialized,
  changingState,
  invalidIndexer,
  invalidPassword,
  lockedNode,
  notInitialized,
  unlockedNode,
  wrongPassword,
} from '../rln/errors.js';
import { Keystore, WrongPasswordError } from './keystore.js';
import { nodePubkey, readNodeRecord, writeNodeRecord } from './node-record.js';

export interface RgbNodeOptions {
  dataDir: string;
  /** Used when /unlock names no indexer_url. */
  indexerUrl?: string;
  /** The consignment proxy invoices name when /rgbinvoice gives no transport_endpoints. */
  proxyEndpoint?: string;
}

export interface UnlockRequest {
  password: string;
  indexerUrl?: string;
  proxyEndpoint?: string;
}

/** The unlocked node: its online wallet and what it was unlocked with. */
export interface UnlockedNode {
  wallet: RgbWallet;
  keys: RgbKeys;
  pubkey: string;
  indexerUrl: string;
  proxyEndpoint?: string;
}

const MIN_PASSWORD_LENGTH = 8;

export class RgbNode {
  private readonly keystore: Keystore;
  private readonly recordFile: string;
  private state: 'uninitialized' | 'locked' | 'changing' | 'unlocked';
  private current: UnlockedNode | undefined;

  constructor(private readonly options: RgbNodeOptions) {
    this.keystore = new Keystore(join(options.dataDir, 'keys.json'));
    this.recordFile = join(options.dataDir, 'node.json');
    this.state = this.keystore.exists() ? 'locked' : 'uninitialized';
  }

  get status() {
    return this.state;
  }

  /** Creates the node's keys (or restores them from `mnemonic`), sealed with `password`; the node stays locked. */
  async init(password: string, mnemonic?: string): Promise<string> {
    if (this.state === 'changing') throw changingState();
    if (this.state !== 'uninitialized') throw alreadyInitialized();
    if (password.length < MIN_PASSWORD_LENGTH) throw invalidPassword(`must have at least ${MIN_PASSWORD_LENGTH} chars`);
    this.state = 'changing';
    try {
      const keys = mnemonic ? await restoreRgbKeys(mnemonic) : await generateRgbKeys();
      await this.keystore.save(keys, password);
      writeNodeRecord(this.recordFile, {
        network: 'regtest',
        pubkey: nodePubkey(keys.mnemonic),
        initialized_at: new Date().toISOString(),
      });
      this.state = 'locked';
      return keys.mnemonic;
    } catch (error) {
      this.state = 'uninitialized';
      throw error;
    }
  }

  /** Opens the keys with `password`, opens the wallet and goes online through the indexer. */
  async unlock(request: UnlockRequest): Promise<void> {
    if (this.state === 'uninitialized') throw notInitialized();
    if (this.state === 'changing') throw changingState();
    if (this.state === 'unlocked') throw unlockedNode();
    const indexerUrl = request.indexerUrl ?? this.options.indexerUrl;
    if (!indexerUrl) throw invalidIndexer('no indexer: give indexer_url to /unlock or start the node with INDEXER_URL');
    this.state = 'changing';
    try {
      const keys = await this.keystore.open(request.password);
      const walletDir = join(this.options.dataDir, 'wallet');
      mkdirSync(walletDir, { recursive: true });
      const wallet = await RgbWallet.open({ dataDir: walletDir, keys });
      await wallet.goOnline(indexerUrl).catch(async (error: unknown) => {
        await wallet.close();
        throw error;
      });
      const pubkey = readNodeRecord(this.recordFile)?.pubkey ?? nodePubkey(keys.mnemonic);
      this.current = {
        wallet,
        keys,
        pubkey,
        indexerUrl,
        proxyEndpoint: request.proxyEndpoint ?? this.options.proxyEndpoint,
      };
      this.state = 'unlocked';
    } catch (error) {
      this.state = 'locked';
      throw error instanceof WrongPasswordError ? wrongPassword() : error;
    }
  }

  async lock(): Promise<void> {
    const { wallet } = this.unlocked();
    this.state = 'changing';
    this.current = undefined;
    try {
      await wallet.close();
    } finally {
      this.state = 'locked';
    }
  }

  /** The unlocked node, or RLN's refusal for the node's state. */
  unlocked(): UnlockedNode {
    if (this.state === 'uninitialized') throw notInitialized();
    if (this.state === 'changing') throw changingState();
    if (!this.current) throw lockedNode();
    return this.current;
  }

  /** Closes the wallet (process shutdown). */
  async shutdown(): Promise<void> {
    await this.current?.wallet.close();
  }
}
