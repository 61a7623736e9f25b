// The lab's consignment proxy speaking RGB HTTP JSON-RPC 0.2 over real HTTP: every method, every
// protocol error code, both multipart styles, the upload limit, and its data across a restart.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../services/rgb-proxy/src/app.js';
import { ProxyStore } from '../../services/rgb-proxy/src/store.js';

const TXID = 'ab'.repeat(32);
const LIMIT = 4096;

interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

describe('rgb-proxy (RGB HTTP JSON-RPC 0.2)', () => {
  let dataDir: string;
  let app: FastifyInstance;
  let base: string;
  let nextRecipient = 0;
  const recipient = () => `bcrt:utxob:test-${++nextRecipient}`;

  const start = async () => {
    app = await buildApp({ store: await ProxyStore.open(dataDir), maxUploadBytes: LIMIT });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  };

  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${base}/json-rpc`, { method: 'POST', body, headers });
  const rpc = async (method: string, params?: unknown, id: unknown = 7): Promise<RpcAnswer> => {
    const response = await post(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(200);
    return (await response.json()) as RpcAnswer;
  };
  /** A multipart call the way rgb-lib sends it: the params as one JSON field, id "1". */
  const upload = async (
    method: string,
    params: Record<string, unknown> | undefined,
    file?: Buffer,
    id = '1',
  ): Promise<RpcAnswer> => {
    const form = new FormData();
    form.set('method', method);
    form.set('jsonrpc', '2.0');
    form.set('id', id);
    if (params) form.set('params', JSON.stringify(params));
    if (file) form.set('file', new Blob([new Uint8Array(file)]), 'consignment.rgbc');
    const response = await post(form);
    expect(response.status).toBe(200);
    return (await response.json()) as RpcAnswer;
  };
  const codeOf = (answer: RpcAnswer) => answer.error?.code;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rgb-proxy-'));
    await start();
  });

  afterAll(async () => {
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers server.info with protocol 0.2, echoing the id as sent', async () => {
    for (const id of [null, 3, 'abc']) {
      const answer = await rpc('server.info', undefined, id);
      expect(answer).toEqual({
        jsonrpc: '2.0',
        id,
        result: { protocol_version: '0.2', version: expect.any(String), uptime: expect.any(Number) },
      });
    }
  });

  it('stores a consignment posted as rgb-lib posts it, gives it back, and never replaces it', async () => {
    const id = recipient();
    const file = Buffer.from('consignment bytes \u0000\u00ff');
    expect(await upload('consignment.post', { recipient_id: id, txid: TXID, vout: 1 }, file)).toEqual({
      jsonrpc: '2.0',
      id: '1',
      result: true,
    });
    expect((await rpc('consignment.get', { recipient_id: id })).result).toEqual({
      consignment: file.toString('base64'),
      txid: TXID,
      vout: 1,
    });
    // the same file again is accepted as already there; another one is refused
    expect((await upload('consignment.post', { recipient_id: id, txid: TXID, vout: 1 }, file)).result).toBe(false);
    const changed = await upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.from('other bytes'));
    expect(changed.error).toEqual({ code: -101, message: expect.stringMatching(/^Cannot change uploaded file/) });
    expect((await rpc('consignment.get', { recipient_id: id })).result).toMatchObject({
      consignment: file.toString('base64'),
    });
  });

  it('reads params[name] form fields too, a vout among them as text', async () => {
    const id = recipient();
    const form = new FormData();
    form.set('jsonrpc', '2.0');
    form.set('id', '9');
    form.set('method', 'consignment.post');
    form.set('params[recipient_id]', id);
    form.set('params[txid]', TXID.toUpperCase());
    form.set('params[vout]', '2');
    form.set('file', new Blob(['form style']), 'c.rgbc');
    expect(await (await post(form)).json()).toEqual({ jsonrpc: '2.0', id: '9', result: true });
    expect((await rpc('consignment.get', { recipient_id: id })).result).toEqual({
      consignment: Buffer.from('form style').toString('base64'),
      txid: TXID,
      vout: 2,
    });
  });

  it('refuses a consignment without what it needs, with the protocol codes, and stores nothing', async () => {
    const id = recipient();
    const file = Buffer.from('x');
    expect(await upload('consignment.post', { recipient_id: id, txid: TXID })).toMatchObject({
      error: { code: -303, message: expect.stringMatching(/^Missing file/) },
    });
    expect(await upload('consignment.post', { recipient_id: id }, file)).toMatchObject({
      error: { code: -303, message: expect.stringMatching(/^Missing TXID/) },
    });
    expect(codeOf(await upload('consignment.post', { txid: TXID }, file))).toBe(-302);
    expect(codeOf(await upload('consignment.post', { recipient_id: '', txid: TXID }, file))).toBe(-202);
    expect(codeOf(await upload('consignment.post', { recipient_id: 42, txid: TXID }, file))).toBe(-202);
    expect(codeOf(await upload('consignment.post', { recipient_id: id, txid: 'not-a-txid' }, file))).toBe(-203);
    for (const vout of [-1, 1.5, '1', 2 ** 32])
      expect(codeOf(await upload('consignment.post', { recipient_id: id, txid: TXID, vout }, file))).toBe(-204);
    expect(await rpc('consignment.get', { recipient_id: id })).toMatchObject({
      error: { code: -400, message: expect.stringMatching(/^Consignment file not found/) },
    });
    expect(codeOf(await rpc('consignment.get', {}))).toBe(-302);
  });

  it('keeps the ACK: null until answered, set once, changed never', async () => {
    const id = recipient();
    expect(codeOf(await rpc('ack.get', { recipient_id: id }))).toBe(-400);
    expect(codeOf(await rpc('ack.post', { recipient_id: id, ack: true }))).toBe(-400);
    await upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.from('to be acked'));
    expect(await rpc('ack.get', { recipient_id: id })).toEqual({ jsonrpc: '2.0', id: 7, result: null });
    expect(codeOf(await rpc('ack.post', { recipient_id: id }))).toBe(-300);
    expect(codeOf(await rpc('ack.post', { recipient_id: id, ack: 'yes' }))).toBe(-200);
    expect(codeOf(await rpc('ack.post', { ack: true }))).toBe(-302);
    expect((await rpc('ack.get', { recipient_id: id })).result).toBeNull();
    expect((await rpc('ack.post', { recipient_id: id, ack: false })).result).toBe(true);
    expect((await rpc('ack.post', { recipient_id: id, ack: false })).result).toBe(false);
    expect(await rpc('ack.post', { recipient_id: id, ack: true })).toMatchObject({
      error: { code: -100, message: expect.stringMatching(/^Cannot change ACK/) },
    });
    expect((await rpc('ack.get', { recipient_id: id })).result).toBe(false);
  });

  it('stores media files under their attachment id', async () => {
    const attachment = 'f'.repeat(64);
    const media = Buffer.from([1, 2, 3, 250]);
    expect(codeOf(await rpc('media.get', { attachment_id: attachment }))).toBe(-401);
    expect(codeOf(await upload('media.post', { attachment_id: attachment }))).toBe(-303);
    expect(codeOf(await upload('media.post', {}, media))).toBe(-301);
    expect(codeOf(await upload('media.post', { attachment_id: 5 }, media))).toBe(-201);
    expect((await upload('media.post', { attachment_id: attachment }, media)).result).toBe(true);
    expect((await upload('media.post', { attachment_id: attachment }, media)).result).toBe(false);
    expect(codeOf(await upload('media.post', { attachment_id: attachment }, Buffer.from('else')))).toBe(-101);
    expect((await rpc('media.get', { attachment_id: attachment })).result).toBe(media.toString('base64'));
    expect(codeOf(await rpc('media.get', {}))).toBe(-301);
  });

  it("answers a malformed call with JSON-RPC's own errors", async () => {
    const raw = async (body: string) => (await post(body, { 'content-type': 'application/json' })).json();
    expect(await raw('{"jsonrpc": "2.0", "id": 1, "method"')).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await raw('[{"jsonrpc":"2.0","id":1,"method":"server.info"}]')).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/batches/) },
    });
    expect(await raw('{"id":4,"method":"server.info"}')).toMatchObject({ id: 4, error: { code: -32600 } });
    expect(await raw('{"jsonrpc":"2.0","id":{},"method":"server.info"}')).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(await rpc('consignment.delete', { recipient_id: 'x' })).toMatchObject({
      id: 7,
      error: { code: -32601, message: expect.stringMatching(/consignment\.get/) },
    });
    // no body at all is no call: an HTTP 400 in reglab's error shape
    const empty = await fetch(`${base}/json-rpc`, { method: 'POST' });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error).toMatchObject({
      code: 'MISSING_BODY',
      message: expect.stringMatching(/JSON-RPC call/),
    });
    // a body that says it is a multipart form and is not one parses as little as broken JSON
    const form = async (contentType: string, body: string) => {
      const response = await post(body, { 'content-type': contentType });
      expect(response.status).toBe(200);
      return response.json();
    };
    expect(await form('multipart/form-data', '{"jsonrpc":"2.0","id":1,"method":"server.info"}')).toMatchObject({
      id: null,
      error: { code: -32700, message: expect.stringMatching(/not a multipart form.*[Bb]oundary/) },
    });
    expect(await form('multipart/form-data; boundary=x1', '--x1\r\n[[None]]--x1--\r\n')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    // a notification (no id) is carried out and not answered
    const id = recipient();
    await upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.from('notified'));
    const notification = await post(
      JSON.stringify({ jsonrpc: '2.0', method: 'ack.post', params: { recipient_id: id, ack: true } }),
      { 'content-type': 'application/json' },
    );
    expect(notification.status).toBe(204);
    expect(await notification.text()).toBe('');
    expect((await rpc('ack.get', { recipient_id: id })).result).toBe(true);
  });

  it('refuses an upload over MAX_UPLOAD_BYTES with a clear JSON-RPC error and keeps nothing of it', async () => {
    const id = recipient();
    const tooLarge = await upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.alloc(LIMIT + 1, 7));
    expect(tooLarge).toEqual({
      jsonrpc: '2.0',
      id: '1',
      error: {
        code: -32000,
        message: expect.stringMatching(new RegExp(`^File too large: .*${LIMIT} bytes.*MAX_UPLOAD_BYTES`)),
      },
    });
    expect(codeOf(await rpc('consignment.get', { recipient_id: id }))).toBe(-400);
    expect((await upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.alloc(LIMIT, 7))).result).toBe(
      true,
    );
    const twoFiles = new FormData();
    for (const [name, value] of [
      ['jsonrpc', '2.0'],
      ['id', '3'],
      ['method', 'media.post'],
      ['params', '{"attachment_id":"two"}'],
    ])
      twoFiles.set(name!, value!);
    twoFiles.append('file', new Blob(['a']), 'a');
    twoFiles.append('file', new Blob(['b']), 'b');
    expect(await (await post(twoFiles)).json()).toMatchObject({
      id: '3',
      error: { code: -32600, message: expect.stringMatching(/one file/) },
    });
    expect(codeOf(await rpc('media.get', { attachment_id: 'two' }))).toBe(-401);
  });

  it('stores one consignment when two different ones race for a recipient id', async () => {
    const id = recipient();
    const answers = await Promise.all(
      ['first', 'second'].map((text) =>
        upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.from(text)),
      ),
    );
    expect(answers.map((answer) => answer.result ?? answer.error?.code).sort()).toEqual([-101, true].sort());
  });

  it("answers what is not a JSON-RPC call in reglab's error shape, and serves /health and its OpenAPI document", async () => {
    const wrongMethod = await fetch(`${base}/json-rpc`);
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual({
      error: { code: 'METHOD_NOT_ALLOWED', message: expect.stringContaining('POST') },
    });
    const wrongType = await post('hello', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    const health = await fetch(`${base}/health`);
    expect(await health.json()).toEqual({
      status: 'ok',
      protocol_version: '0.2',
      version: expect.any(String),
      uptime_seconds: expect.any(Number),
      consignments: expect.any(Number),
      media: 1,
    });
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/json-rpc', '/health']));
  });

  it('keeps every consignment, ACK and media file across a restart, and still refuses changes', async () => {
    const id = recipient();
    await upload('consignment.post', { recipient_id: id, txid: TXID, vout: 0 }, Buffer.from('kept'));
    await rpc('ack.post', { recipient_id: id, ack: true });
    const before = (await (await fetch(`${base}/health`)).json()) as { consignments: number; media: number };
    await app.close();
    // a line cut short by a crash mid-write is passed over; the next writes still land
    appendFileSync(join(dataDir, 'index.jsonl'), '{"kind":"consignment","recipientId":"torn');
    await start();
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({
      consignments: before.consignments,
      media: before.media,
    });
    expect((await rpc('consignment.get', { recipient_id: id })).result).toEqual({
      consignment: Buffer.from('kept').toString('base64'),
      txid: TXID,
      vout: 0,
    });
    expect((await rpc('ack.get', { recipient_id: id })).result).toBe(true);
    expect(codeOf(await rpc('ack.post', { recipient_id: id, ack: false }))).toBe(-100);
    expect(codeOf(await upload('consignment.post', { recipient_id: id, txid: TXID }, Buffer.from('changed')))).toBe(
      -101,
    );
    const after = recipient();
    expect(
      (await upload('consignment.post', { recipient_id: after, txid: TXID }, Buffer.from('after the restart'))).result,
    ).toBe(true);
    await app.close();
    await start();
    expect((await rpc('consignment.get', { recipient_id: after })).result).toMatchObject({
      consignment: Buffer.from('after the restart').toString('base64'),
    });
  });
});
