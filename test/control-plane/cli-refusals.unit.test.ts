// A request the control plane's schema refuses, as the CLI tells it: the field by its name, never the
// schema's path into the request (`body/blocks`). Against a service made as the control plane's API
// is (lib/http/service.ts) with the API's own body schemas, over HTTP.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../../lib/http/service.js';
import { mineBody, channelBody } from '../../control-plane/src/api/schemas.js';
import { ApiError, ControlPlaneClient } from '../../control-plane/src/cli/client.js';

describe('a refusal of the API schema, as the CLI says it', () => {
  let app: FastifyInstance;
  let client: ControlPlaneClient;

  beforeAll(async () => {
    app = await createService({ title: 't', description: 't', version: '0', logger: false });
    app.post('/mine', { schema: { body: mineBody } }, async () => ({}));
    app.post('/channels', { schema: { body: channelBody } }, async () => ({}));
    client = new ControlPlaneClient(await app.listen({ host: '127.0.0.1', port: 0 }));
  });
  afterAll(() => app.close());

  const refusal = async (path: string, body: unknown) => {
    const error = await client.request('POST', path, body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    return { status: (error as ApiError).status, code: (error as ApiError).code, message: (error as ApiError).message };
  };

  it('names the field, not its path in the request', async () => {
    expect(await refusal('/mine', { blocks: 0 })).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'blocks must be >= 1',
    });
    expect(await refusal('/mine', { blocks: 5000 })).toMatchObject({ message: 'blocks must be <= 1000' });
    expect(await refusal('/channels', { from: 'alice', to: 'bob', capacity_sat: 10 })).toMatchObject({
      message: 'capacity_sat must be >= 20000',
    });
  });
});
