import { join } from 'node:path';
import { BtcdDriver } from '../../../lib/chain/btcd.js';
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';
import { invalid, notFound } from '../../../lib/errors.js';
import { throughNetwork } from '../network/placement.js';
import { CHAIN_SERVICE, chainRpcFor } from '../nodes/btcd/index.js';
import { holdsAssets, isLightning, type AssetHolder, type LabLightning, type LabNode } from '../nodes/node.js';
import { kindDefinition } from '../nodes/registry.js';
import type { LabAccess } from '../nodes/types.js';
import type { Placement, RuntimeOptions } from '../runtimes/types.js';
import { LabWallet } from '../wallet/lab-wallet.js';
import { ChainJournal } from './chain-journal.js';
import { Credentials } from './credentials.js';
import type { LabState } from './state.js';
import { ownValue } from '../util/own.js';

/** Live connections of the control plane to one lab: its chain node, its wallet, its nodes. */
export class LabSession implements LabAccess {
  readonly credentials: Credentials;
  /** The lab's blocks, which a restarted chain node is given back. */
  readonly chainJournal: ChainJournal;
  readonly runtime: RuntimeOptions['runtime'];
  /** How the control plane (on this machine) reaches the lab's services. */
  readonly host: Placement;
  /** The chain driver with the credentials it was made from (btcd's certificate, read by its probe). */
  private chainDriver?: { madeFrom?: Record<string, string>; driver: RpcChainDriver };
  private wallet?: LabWallet;
  private mining: Promise<unknown> = Promise.resolve();
  /** Each node handle with the credentials it was made from: new credentials, new handle. */
  private readonly nodes = new Map<string, { madeFrom?: Record<string, string>; node: LabNode }>();

  constructor(
    readonly lab: LabState,
    private readonly runtimeOptions: RuntimeOptions,
    readonly controlPlaneUrl?: string,
  ) {
    this.runtime = runtimeOptions.runtime;
    this.credentials = new Credentials((lab.credentials ??= {}));
    this.host = runtimeOptions.hostPlacement(lab);
    this.chainJournal = new ChainJournal(join(lab.dir, 'chain-blocks.journal'));
  }

  /** How `service` sees the lab; in a lab with network faults, the links it opens go through their proxies. */
  placementFor(service: string): Placement {
    return throughNetwork(this.runtimeOptions.placementFor(this.lab, service), this.lab, service);
  }

  get chain(): RpcChainDriver {
    const madeFrom = this.credentials.get(CHAIN_SERVICE);
    if (!this.chainDriver || this.chainDriver.madeFrom !== madeFrom) {
      this.chainDriver?.driver.close();
      this.chainDriver = { madeFrom, driver: new BtcdDriver(chainRpcFor(this, this.host)) };
      this.wallet = undefined;
    }
    return this.chainDriver!.driver;
  }

  get labWallet(): LabWallet {
    this.wallet ??= new LabWallet(this.chain, this.lab.secrets.labWalletKeyHex);
    return this.wallet;
  }

  node(name: string): LabNode {
    const spec = this.lab.spec.nodes.find((candidate) => candidate.name === name);
    if (!spec)
      throw notFound(
        `lab ${this.lab.name} has no node "${name}" (nodes: ${this.lab.spec.nodes.map((node) => node.name).join(', ') || 'none'})`,
        'NO_SUCH_NODE',
      );
    const madeFrom = this.credentials.get(name);
    const cached = this.nodes.get(name);
    if (cached && cached.madeFrom === madeFrom) return cached.node;
    cached?.node.close();
    const node = kindDefinition(spec.kind).node!(this, name);
    this.nodes.set(name, { madeFrom, node });
    return node;
  }

  /** A node's Lightning client; an error saying so for kinds that have none. */
  lightning(name: string): LabLightning {
    const node = this.node(name);
    if (!isLightning(node))
      throw invalid(
        'NOT_A_LIGHTNING_NODE',
        `node "${name}" is an ${node.kind} node: it has no Lightning side the lab can drive`,
      );
    return node.lightning;
  }

  /** A node's RGB asset side; an error saying so for kinds that hold no assets. */
  assets(name: string): AssetHolder {
    const node = this.node(name);
    if (!holdsAssets(node))
      throw invalid(
        'NOT_AN_ASSET_NODE',
        `node "${name}" is an ${node.kind} node: it holds no RGB assets (rgb and rln nodes do)`,
      );
    return node;
  }

  clientEnvOf(name: string, placement: Placement): Record<string, string> {
    const kind = ownValue(this.lab.services, name)?.kind;
    const clientEnv = kind ? kindDefinition(kind).clientEnv : undefined;
    if (!clientEnv) throw new Error(`"${name}" is not a Lightning node a lab service can use`);
    return clientEnv(this, name, placement);
  }

  /**
   * Mines to `address`, or to the lab wallet (btcd's own fast miner); returns the new blocks and
   * height once they are in the chain journal. One mining call at a time: btcd refuses a second
   * `generate` while one runs.
   */
  mine(blocks: number, address?: string): Promise<{ hashes: string[]; height: number }> {
    const run = async () => {
      const chain = this.chain;
      const hashes =
        address === undefined && chain instanceof BtcdDriver
          ? await chain.generate(blocks)
          : await chain.mine(blocks, address ?? this.labWallet.address);
      await this.recordChain();
      return { hashes, height: await chain.getBlockCount() };
    };
    const mined = this.mining.then(run, run);
    this.mining = mined.catch(() => undefined);
    return mined;
  }

  /** Brings the chain journal to the chain node's best chain (after mining, a reorg, or blocks mined by others). */
  recordChain(): Promise<void> {
    return this.chainJournal.follow(this.chain);
  }

  /** host:port at which node `from` dials node `to` (a container name on docker, loopback on process). */
  peerAddress(from: string, to: string): string {
    return this.placementFor(from).reach(to, 'p2p');
  }

  /**
   * Re-reads the credentials of every service that runs, as a restarted control plane must (the
   * probes read them from the services' folders).
   */
  async reattach(): Promise<void> {
    const running = Object.values(this.lab.services).filter((service) => service.status === 'ready');
    const chain = running.find((service) => service.name === CHAIN_SERVICE);
    if (chain)
      await kindDefinition(chain.kind)
        .probe(this, chain)
        .catch(() => false);
    await Promise.all(
      running
        .filter((service) => service !== chain)
        .map((service) =>
          kindDefinition(service.kind)
            .probe(this, service)
            .catch(() => false),
        ),
    );
  }

  close(): void {
    this.chainDriver?.driver.close();
    for (const { node } of this.nodes.values()) node.close();
    this.nodes.clear();
  }
}
