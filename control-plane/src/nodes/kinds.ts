/** Every kind of service a lab can run; each has a folder here and a line in registry.ts. */
export type ServiceKind =
  | 'btcd'
  | 'lnd'
  | 'ldk'
  | 'rln'
  | 'rgb'
  | 'postgres'
  | 'redis'
  | 'indexer'
  | 'rgb-proxy'
  | 'wallet-server'
  | 'faucet'
  | 'chain-adapter'
  | 'toxiproxy';
