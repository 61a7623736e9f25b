import type { LndCredentials } from '../../../lib/lightning/lnd.js';
import type { ChainRpcConfig } from '../../../lib/chain/types.js';
import type { Placement } from '../kinds/types.js';
import type { LabState } from './state.js';
import { CHAIN_SERVICE } from './plan.js';
import { hostPlacement } from '../runtimes/host-placement.js';

/**
 * Credentials the lab collects as services come up (btcd's certificate, each lnd's certificate and
 * macaroon), and the connection settings built from them as a given placement sees them.
 */
export class LabConnections {
  chainCertPem?: string;
  readonly lnd = new Map<string, { certBase64: string; macaroonHex: string }>();

  constructor(private readonly lab: LabState) {}

  chainRpc(placement: Placement): ChainRpcConfig {
    const scheme = this.lab.spec.chain.kind === 'btcd' ? 'https' : 'http';
    return {
      kind: this.lab.spec.chain.kind,
      url: `${scheme}://${placement.reach(CHAIN_SERVICE, 'rpc')}`,
      user: this.lab.secrets.chainRpcUser,
      password: this.lab.secrets.chainRpcPassword,
      tlsCertPem: this.chainCertPem,
    };
  }

  lndCredentials(node: string, placement: Placement): LndCredentials {
    const secrets = this.lnd.get(node);
    if (!secrets) throw new Error(`the credentials of lnd node "${node}" are not known yet`);
    return { socket: placement.reach(node, 'grpc'), ...secrets };
  }

  /** host:port of a service's named port from this machine. */
  hostAddress(service: string, port: string): string {
    return hostPlacement(this.lab).reach(service, port);
  }
}
