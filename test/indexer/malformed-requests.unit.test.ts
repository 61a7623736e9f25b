// Malformed Electrum requests on a staged chain, as an outside client may send them: each is answered
// with a JSON-RPC error that blames the request, and the connection (and the server) go on answering.
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../services/indexer/src/rpc/protocol.js';
import { FakeChain, p2wpkhScript } from './fake-chain.js';
import { connectLineClient } from './rpc-line-client.js';
import { startStagedIndexer, type StagedIndexer } from './staged-indexer.js';

type Answer = { id?: unknown; result?: unknown; error?: { code: number; message: string } };

describe('malformed Electrum requests', () => {
  let staged: StagedIndexer | undefined;

  afterEach(async () => {
    await staged?.close();
    staged = undefined;
  });

  const start = async () => {
    const chain = new FakeChain();
    for (let i = 1; i <= 3; i++) chain.mineTo(p2wpkhScript(i));
    staged = await startStagedIndexer(chain.asDriver());
    return staged;
  };

  it('refuses an id that is not a string, a number or null, and goes on answering', async () => {
    const { client, indexer } = await start();
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    for (const id of [deep, '{"a":1}', '[1]', 'true']) {
      const answer = (await client.raw(`{"jsonrpc":"2.0","id":${id},"method":"server.ping"}`)) as Answer;
      expect(answer.id, id.slice(0, 20)).toBeNull();
      expect(answer.error?.code, id.slice(0, 20)).toBe(ErrorCode.invalidRequest);
      expect(answer.error?.message).toMatch(/"id" must be a string, a number or null/);
    }
    // in a batch too, each refused on its own
    const batch = (await client.raw(
      `[{"jsonrpc":"2.0","id":${deep},"method":"server.ping"},{"jsonrpc":"2.0","id":7,"method":"server.ping"}]`,
    )) as Answer[];
    expect(batch.map((answer) => answer.error?.code ?? answer.result)).toEqual([ErrorCode.invalidRequest, null]);
    // the same connection and a new one are still answered
    expect(await client.request('server.ping')).toBeNull();
    const other = await connectLineClient(indexer.port);
    expect(await other.request('server.ping')).toBeNull();
    other.close();
  });

  it('answers a height beyond any block as the request’s error, not an internal one', async () => {
    const { client } = await start();
    for (const height of [4_294_967_296, 1e300]) {
      const answer = (await client.raw(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'blockchain.transaction.id_from_pos', params: [height, 0] }),
      )) as Answer;
      expect(answer.error?.code, String(height)).toBe(ErrorCode.badRequest);
      expect(answer.error?.message).toMatch(/is above the indexed tip 3/);
    }
    const known = (await client.raw(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'blockchain.transaction.id_from_pos', params: [3, 0] }),
    )) as Answer;
    expect(known.result).toMatch(/^[0-9a-f]{64}$/);
  });
});
