// A workshop's labs each have a token of their own: on a control plane open to the network it grants
// that lab's actions and secrets, and nothing of another lab, nor taking its own lab down.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAccess } from '../../control-plane/src/api/access.js';
import { createService } from '../../lib/http/service.js';

const ADMIN = 'admin-token';
const TOKENS: Record<string, string> = { 'attendee-1': 'one', 'attendee-2': 'two' };

describe("a lab's own token", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createService({ title: 't', description: 't', version: '0', logger: false });
    installAccess(app, ADMIN, (lab) => TOKENS[lab]);
    const done = async () => ({ done: true });
    app.post('/labs/:name/mine', done);
    app.get('/labs/:name/logs/:service', { config: { access: 'secret' } }, done);
    app.get('/labs/:name', done);
    app.delete('/labs/:name', done);
    app.post('/labs', done);
    app.post('/snapshots/:name/up', done);
    await app.ready();
  });
  afterAll(() => app.close());

  const ask = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string) =>
    app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("acts on its own lab and reads its secrets, like the control plane's token", async () => {
    expect((await ask('POST', '/labs/attendee-1/mine', 'one')).statusCode).toBe(200);
    expect((await ask('GET', '/labs/attendee-1/logs/alice', 'one')).statusCode).toBe(200);
    expect((await ask('POST', '/labs/attendee-1/mine', ADMIN)).statusCode).toBe(200);
  });

  it("is refused on another lab, on what is not a lab's, and for taking its lab down", async () => {
    const refused = await ask('POST', '/labs/attendee-2/mine', 'one');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('TOKEN_REQUIRED');
    expect((await ask('GET', '/labs/attendee-2/logs/alice', 'one')).statusCode).toBe(401);
    expect((await ask('POST', '/labs', 'one')).statusCode).toBe(401);
    expect((await ask('POST', '/snapshots/attendee-1/up', 'one')).statusCode).toBe(401);
    expect((await ask('DELETE', '/labs/attendee-1', 'one')).statusCode).toBe(401);
    expect((await ask('DELETE', '/labs/attendee-1', ADMIN)).statusCode).toBe(200);
    // reading stays open to anyone
    expect((await ask('GET', '/labs/attendee-2')).statusCode).toBe(200);
  });

  it('GET /access?lab= tells the dashboard whether its token is good for that lab', async () => {
    expect((await ask('GET', '/access?lab=attendee-1', 'one')).json()).toEqual({
      tokenRequired: true,
      authorized: true,
    });
    expect((await ask('GET', '/access?lab=attendee-2', 'one')).json()).toEqual({
      tokenRequired: true,
      authorized: false,
    });
    expect((await ask('GET', '/access', 'one')).json()).toEqual({ tokenRequired: true, authorized: false });
    expect((await ask('GET', '/access', ADMIN)).json()).toEqual({ tokenRequired: true, authorized: true });
  });
});
