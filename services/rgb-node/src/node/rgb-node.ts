// One RGB node's life, as RLN's: not initialised until /init seals its keys; locked until /unlock
// opens the wallet and goes online; "changing state" while either runs (every other call is then
// refused, as RLN does); unlocked until /lock or the process ends. Restarting keeps the wallet
// (DATA_DIR) and starts locked.
import { join } from 'node:path';
import type { LibKeys } from '../wallet/binding.js';
import type { WalletOp, WalletThread } from '../wallet/wallet-thread.js';
import type { WalletKeys, WalletOps } from '../wallet/wallet-ops.js';
import { alreadyInitialized, changingState, invalidIndexer, invalidPassword, lockedNode, notInitialized, unlockedNode, wrongPassword } from '../rln/errors.js';
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

const MIN_PASSWORD_LENGTH = 8;

/** What the wallet is opened with, of what rgb-lib's key generation gives. */
const walletKeys = (keys: LibKeys): WalletKeys => ({
  mnemonic: keys.mnemonic,
  accountXpubVanilla: keys.accountXpubVanilla,
  accountXpubColored: keys.accountXpubColored,
  masterFingerprint: keys.masterFingerprint,
  witnessVersion: keys.witnessVersion,
});

/** The unlocked node: its wallet thread and what it was unlocked with. */
export class UnlockedWallet {
  constructor(
    private readonly thread: WalletThread,
    readonly keys: WalletKeys,
    readonly pubkey: string,
    readonly indexerUrl: string,
    readonly proxyEndpoint: string | undefined,
  ) {}

  call<K extends WalletOp>(op: K, ...args: Parameters<WalletOps[K]>): Promise<ReturnType<WalletOps[K]>> {
    return this.thread.call(op, ...args);
  }
}

export class RgbNode {
  private readonly keystore: Keystore;
  private readonly recordFile: string;
  private state: 'uninitialized' | 'locked' | 'changing' | 'unlocked';
  private unlocked: UnlockedWallet | undefined;

  constructor(
    private readonly options: RgbNodeOptions,
    private readonly thread: WalletThread,
  ) {
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
      const keys = walletKeys(mnemonic ? await this.thread.call('restoreKeys', mnemonic) : await this.thread.call('generateKeys'));
      await this.keystore.save(keys, password);
      writeNodeRecord(this.recordFile, { network: 'regtest', pubkey: nodePubkey(keys.mnemonic), initialized_at: new Date().toISOString() });
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
      await this.thread.call('open', join(this.options.dataDir, 'wallet'), keys, indexerUrl);
      const pubkey = readNodeRecord(this.recordFile)?.pubkey ?? nodePubkey(keys.mnemonic);
      this.unlocked = new UnlockedWallet(this.thread, keys, pubkey, indexerUrl, request.proxyEndpoint ?? this.options.proxyEndpoint);
      this.state = 'unlocked';
    } catch (error) {
      this.state = 'locked';
      throw error instanceof WrongPasswordError ? wrongPassword() : error;
    }
  }

  async lock(): Promise<void> {
    this.wallet(); // refuses unless unlocked
    this.state = 'changing';
    this.unlocked = undefined;
    try {
      await this.thread.call('close');
    } finally {
      this.state = 'locked';
    }
  }

  /** The unlocked wallet, or RLN's refusal for the node's state. */
  wallet(): UnlockedWallet {
    if (this.state === 'uninitialized') throw notInitialized();
    if (this.state === 'changing') throw changingState();
    if (!this.unlocked) throw lockedNode();
    return this.unlocked;
  }

  /** Closes the wallet and ends the wallet thread (process shutdown). */
  async shutdown(): Promise<void> {
    if (this.unlocked) await this.thread.call('close').catch(() => undefined);
    await this.thread.close();
  }
}
