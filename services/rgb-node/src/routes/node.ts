// The node's life and identity: /init, /unlock, /lock, /nodeinfo, /networkinfo.
import type { FastifyInstance } from 'fastify';
import { networkError } from '../rln/errors.js';
import { rlnSchema } from '../rln/http.js';
import { emptyResponse, initBody, networkInfoResponse, nodeInfoResponse, unlockBody } from '../rln/schemas.js';
import { indexerTipHeight } from '../node/indexer-tip.js';
import type { RgbNode } from '../node/rgb-node.js';

interface UnlockBody {
  password: string;
  indexer_url?: string | null;
  proxy_endpoint?: string | null;
}

export function nodeRoutes(api: FastifyInstance, node: RgbNode): void {
  api.post<{ Body: { password: string; mnemonic?: string | null } }>(
    '/init',
    {
      schema: rlnSchema({
        tag: 'node',
        method: 'POST',
        summary:
          'Create the node keys (or restore them from a mnemonic), sealed with the password (8 characters or more); the node stays locked',
        body: initBody,
        ok: { type: 'object', required: ['mnemonic'], properties: { mnemonic: { type: 'string' } } },
      }),
    },
    async (request) => ({ mnemonic: await node.init(request.body.password, request.body.mnemonic ?? undefined) }),
  );

  api.post<{ Body: UnlockBody }>(
    '/unlock',
    {
      schema: rlnSchema({
        tag: 'node',
        method: 'POST',
        summary:
          "Open the wallet and go online through indexer_url (else the node's INDEXER_URL); HEAD's and OLD's bodies are both taken, their LDK and bitcoind fields ignored",
        body: unlockBody,
        ok: emptyResponse,
        statuses: [401, 503],
      }),
    },
    async (request) => {
      const { password, indexer_url, proxy_endpoint } = request.body;
      await node.unlock({ password, indexerUrl: indexer_url ?? undefined, proxyEndpoint: proxy_endpoint ?? undefined });
      return {};
    },
  );

  api.post(
    '/lock',
    {
      schema: rlnSchema({
        tag: 'node',
        method: 'POST',
        summary: 'Close the wallet; the node stays up, locked',
        ok: emptyResponse,
      }),
    },
    async () => {
      await node.lock();
      return {};
    },
  );

  api.get(
    '/nodeinfo',
    {
      schema: rlnSchema({
        tag: 'node',
        method: 'GET',
        summary:
          "The node's public key and account xpubs; no channels, peers or Lightning balance (it has no Lightning side)",
        ok: nodeInfoResponse,
      }),
    },
    async () => {
      const unlocked = node.unlocked();
      return {
        pubkey: unlocked.pubkey,
        num_channels: 0,
        num_usable_channels: 0,
        local_balance_sat: 0,
        eventual_close_fees_sat: 0,
        pending_outbound_payments_sat: 0,
        num_peers: 0,
        account_xpub_vanilla: unlocked.keys.accountXpubVanilla,
        account_xpub_colored: unlocked.keys.accountXpubColored,
        network_nodes: 0,
        network_channels: 0,
      };
    },
  );

  api.get(
    '/networkinfo',
    {
      schema: rlnSchema({
        tag: 'node',
        method: 'GET',
        summary: "The network and the height of the newest block the node's indexer serves",
        ok: networkInfoResponse,
        statuses: [503],
      }),
    },
    async () => {
      const height = await indexerTipHeight(node.unlocked().indexerUrl).catch((error: Error) => {
        throw networkError(`indexer err: ${error.message}`);
      });
      return { network: 'Regtest', height };
    },
  );
}
