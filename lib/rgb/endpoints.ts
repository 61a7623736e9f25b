// The URLs rgb-lib takes for the lab's parts, from their host:port.

/** The lab's Electrum indexer as rgb-lib's indexer. */
export const electrumIndexerUrl = (hostPort: string) => `tcp://${hostPort}`;

/** The lab's chain-data adapter as an Esplora indexer. */
export const esploraIndexerUrl = (hostPort: string) => `http://${hostPort}/api`;

/** A consignment proxy as an invoice's transport endpoint (rgb-lib posts to http://host:port/json-rpc). */
export const proxyEndpoint = (hostPort: string) => `rpc://${hostPort}/json-rpc`;
