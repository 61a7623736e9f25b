import type { AuthenticatedLnd } from 'ln-service';
import { BitcoindDriver } from '../../../lib/chain/bitcoind.js';
import { BtcdDriver } from '../../../lib/chain/btcd.js';
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';
import { connectLnd } from '../../../lib/lightning/lnd.js';
import type { Placement } from '../kinds/types.js';
import { BTCD_RPC_CERT_FILE } from '../kinds/btcd.js';
import { LND_ADMIN_MACAROON_FILE, LND_TLS_CERT_FILE } from '../kinds/lnd.js';
import type { Runtime } from '../runtimes/types.js';
import type { RuntimeOptions } from '../runtimes/select.js';
import { LabWallet } from '../wallet/lab-wallet.js';
import { LabConnections } from './context.js';
import type { LabState } from './state.js';

/** Live connections of the control plane to one lab: its chain node, its wallet, its lnd nodes. */
export class LabSession {
  readonly connections: LabConnections;
  private chainDriver?: RpcChainDriver;
  private wallet?: LabWallet;
  private readonly lnds = new Map<string, AuthenticatedLnd>();

  readonly runtime: Runtime;
  /** How the control plane (on this machine) reaches the lab's services. */
  readonly hostPlacement: Placement;

  constructor(
    readonly lab: LabState,
    private readonly runtimeOptions: RuntimeOptions,
  ) {
    this.connections = new LabConnections(lab);
    this.runtime = runtimeOptions.runtime;
    this.hostPlacement = runtimeOptions.hostPlacement(lab);
  }

  /** host:port at which node `from` dials node `to` (a container name on docker, loopback on process). */
  peerAddress(from: string, to: string): string {
    return this.runtimeOptions.placementFor(this.lab, from).reach(to, 'p2p');
  }

  get labInfo() {
    return { name: this.lab.name, dir: this.lab.dir };
  }

  async loadChainCredentials(): Promise<void> {
    if (this.lab.spec.chain.kind === 'btcd') {
      this.connections.chainCertPem = (await this.runtime.readServiceFile({ lab: this.labInfo, service: 'chain' }, BTCD_RPC_CERT_FILE)).toString('utf8');
    }
  }

  async loadLndCredentials(node: string): Promise<void> {
    const location = { lab: this.labInfo, service: node };
    const cert = await this.runtime.readServiceFile(location, LND_TLS_CERT_FILE);
    const macaroon = await this.runtime.readServiceFile(location, LND_ADMIN_MACAROON_FILE);
    this.connections.lnd.set(node, { certBase64: cert.toString('base64'), macaroonHex: macaroon.toString('hex') });
    this.lnds.delete(node);
  }

  get chain(): RpcChainDriver {
    if (!this.chainDriver) {
      const config = this.connections.chainRpc(this.hostPlacement);
      this.chainDriver = config.kind === 'btcd' ? new BtcdDriver(config) : new BitcoindDriver(config);
    }
    return this.chainDriver;
  }

  get labWallet(): LabWallet {
    this.wallet ??= new LabWallet(this.chain, this.lab.secrets.labWalletKeyHex);
    return this.wallet;
  }

  lnd(node: string): AuthenticatedLnd {
    let lnd = this.lnds.get(node);
    if (!lnd) {
      const spec = this.lab.spec.nodes.find((candidate) => candidate.name === node);
      if (!spec) throw new Error(`no node named "${node}" in lab ${this.lab.name}`);
      if (spec.kind !== 'lnd') throw new Error(`node "${node}" is an ${spec.kind} node, not lnd`);
      lnd = connectLnd(this.connections.lndCredentials(node, this.hostPlacement));
      this.lnds.set(node, lnd);
    }
    return lnd;
  }

  /** Re-reads every credential from the services' folders, as a restarted control plane must. */
  async reattach(): Promise<void> {
    await this.loadChainCredentials();
    for (const node of this.lab.spec.nodes) {
      if (node.kind === 'lnd' && this.lab.services[node.name]?.status === 'ready') await this.loadLndCredentials(node.name);
    }
  }

  close(): void {
    this.chainDriver?.close();
  }
}
