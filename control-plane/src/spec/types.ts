/** lab.yaml, after validation and defaults. */
export interface LabSpec {
  name: string;
  runtime: 'process' | 'docker';
  chain: { kind: 'btcd' | 'bitcoind' };
  indexer: { enabled: boolean };
  nodes: NodeSpec[];
  channels: ChannelSpec[];
  services: ServicesSpec;
  postgres: ExternalOrManaged;
  redis: ExternalOrManaged;
  mining: { initial_blocks: number; auto_mine_seconds: number };
}

export interface NodeSpec {
  name: string;
  kind: 'lnd' | 'rln';
  funding_sat: number;
}

export interface ChannelSpec {
  from: string;
  to: string;
  capacity_sat: number;
  push_sat: number;
}

export interface ServicesSpec {
  'wallet-server'?: { node: string; port?: number; admin_pubkeys: string[] };
  faucet?: { node: string; port?: number; claim_sat: number; cooldown_seconds: number };
  'chain-adapter'?: { port?: number };
}

export type ExternalOrManaged = { managed: true } | { managed: false; url: string };
