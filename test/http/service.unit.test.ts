// The HTTP kit every lab service is made with (lib/http/service.ts): what it answers, in the one error
// shape, for requests no route takes and for path parameters over the router's limit.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../../lib/http/service.js';

describe('the HTTP service kit', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await createService({
      title: 'kit',
      description: 'a service made with the kit',
      version: '1.0.0',
      logger: false,
    });
    app.get(
      '/things/:id',
      { schema: { params: { type: 'object', properties: { id: { type: 'string' } } } } },
      async (request) => ({ id: (request.params as { id: string }).id }),
    );
    app.post('/things/count', async () => ({ count: 1 }));
    app.get(
      '/blocks/:height',
      {
        schema: {
          params: { type: 'object', properties: { height: { type: 'integer', minimum: 0 } } },
          querystring: { type: 'object', properties: { fee: { type: 'number' } } },
        },
      },
      async (request) => ({
        height: (request.params as { height: number }).height,
        fee: (request.query as { fee?: number }).fee,
      }),
    );
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers 405 with Allow for a method the path does not take, even one Fastify wants a content type for (QUERY)', async () => {
    for (const headers of [{}, { 'content-type': 'application/json' }]) {
      const answer = await app.inject({
        method: 'QUERY' as 'GET',
        url: '/things/1',
        headers,
        ...('content-type' in headers ? { payload: '{}' } : {}),
      });
      expect(answer.statusCode, answer.body).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD');
      expect(answer.json().error).toMatchObject({
        code: 'METHOD_NOT_ALLOWED',
        message: expect.stringMatching(/use GET or HEAD/),
      });
    }
  });

  it('answers 405 for a fixed path asked with a method only its sibling with a parameter takes (GET /things/count)', async () => {
    const answer = await app.inject({ url: '/things/count' });
    expect(answer.statusCode, answer.body).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.json().error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      message: 'GET is not allowed on /things/count; use POST',
    });
    expect((await app.inject({ method: 'POST', url: '/things/count' })).json()).toEqual({ count: 1 });
    expect((await app.inject({ url: '/things/counts' })).json()).toEqual({ id: 'counts' });
  });

  it('answers 404 for a path no route has, whatever the method', async () => {
    for (const method of ['GET', 'QUERY']) {
      const answer = await app.inject({ method: method as 'GET', url: '/nothing' });
      expect(answer.statusCode, answer.body).toBe(404);
      expect(answer.json().error.code).toBe('NOT_FOUND');
    }
  });

  it('answers 400 PARAM_TOO_LONG for a path parameter over 100 characters, and declares 400 on the route', async () => {
    expect((await app.inject({ url: `/things/${'x'.repeat(100)}` })).statusCode).toBe(200);
    const answer = await app.inject({ url: `/things/${'x'.repeat(101)}` });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toEqual({
      code: 'PARAM_TOO_LONG',
      message: expect.stringMatching(/over 100 characters/),
    });
    const document = (await app.inject({ url: '/openapi.json' })).json();
    expect(Object.keys(document.paths['/things/{id}'].get.responses)).toEqual(expect.arrayContaining(['400', '500']));
    expect(Object.keys(document.paths['/things/{id}'].get.responses)).not.toContain('414');
  });

  it('takes a number in the path or query only written as one: not blank, spaced, hexadecimal or with an exponent for an integer', async () => {
    expect((await app.inject({ url: '/blocks/16?fee=1.5' })).json()).toEqual({ height: 16, fee: 1.5 });
    expect((await app.inject({ url: '/blocks/0?fee=2e-1' })).json()).toEqual({ height: 0, fee: 0.2 });
    for (const [url, wrong] of [
      ['/blocks/%20', 'params/height must be an integer in digits, not " "'],
      ['/blocks/%C2%A0', 'params/height must be an integer in digits, not "\\u00a0"'],
      ['/blocks/0x10', 'params/height must be an integer in digits, not "0x10"'],
      ['/blocks/1e3', 'params/height must be an integer in digits, not "1e3"'],
      ['/blocks/%205', 'params/height must be an integer in digits, not " 5"'],
      ['/blocks/1?fee=', 'querystring/fee must be a number in digits, not ""'],
      ['/blocks/1?fee=0x1', 'querystring/fee must be a number in digits, not "0x1"'],
    ]) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(400);
      expect(answer.json().error.message, url).toBe(wrong);
    }
  });
});
