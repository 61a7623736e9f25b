// Sign-in state in Redis: single-use nonces, refresh tokens (stored by hash) and sessions.
// A session lives as long as its refresh token chain; logout deletes it, which also kills the
// session's access tokens at their next use.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisCall } from '../redis.js';
import { randomToken } from './tokens.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface RefreshRecord {
  userId: string;
  sessionId: string;
}

export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly ttl: { nonceSec: number; refreshSec: number },
  ) {}

  async issueNonce(pubkey: string): Promise<string> {
    const nonce = randomToken(32);
    await redisCall(() => this.redis.set(`ws:nonce:${pubkey}:${nonce}`, '1', 'EX', this.ttl.nonceSec));
    return nonce;
  }

  /** True once per issued, unexpired nonce (GETDEL makes the check and the removal one step). */
  async consumeNonce(pubkey: string, nonce: string): Promise<boolean> {
    return (await redisCall(() => this.redis.getdel(`ws:nonce:${pubkey}:${nonce}`))) !== null;
  }

  /** Starts a session and returns its first refresh token. */
  async startSession(userId: string, sessionId: string): Promise<string> {
    await redisCall(() => this.redis.set(`ws:session:${sessionId}`, userId, 'EX', this.ttl.refreshSec));
    return this.issueRefresh({ userId, sessionId });
  }

  private async issueRefresh(rec: RefreshRecord): Promise<string> {
    const token = randomToken(32);
    await redisCall(() =>
      this.redis.set(`ws:refresh:${sha256(token)}`, JSON.stringify(rec), 'EX', this.ttl.refreshSec),
    );
    return token;
  }

  /** Exchanges a refresh token for a new one (the old one stops working); null when unknown,
   * used, expired or its session was logged out. */
  async rotateRefresh(token: string): Promise<(RefreshRecord & { refreshToken: string }) | null> {
    const raw = await redisCall(() => this.redis.getdel(`ws:refresh:${sha256(token)}`));
    if (!raw) return null;
    const rec = JSON.parse(raw) as RefreshRecord;
    const alive = await redisCall(() => this.redis.expire(`ws:session:${rec.sessionId}`, this.ttl.refreshSec));
    if (alive !== 1) return null;
    return { ...rec, refreshToken: await this.issueRefresh(rec) };
  }

  /** Revokes the refresh token and its whole session. Unknown tokens are not an error. */
  async logout(token: string): Promise<boolean> {
    const raw = await redisCall(() => this.redis.getdel(`ws:refresh:${sha256(token)}`));
    if (!raw) return false;
    const rec = JSON.parse(raw) as RefreshRecord;
    await redisCall(() => this.redis.del(`ws:session:${rec.sessionId}`));
    return true;
  }

  async sessionAlive(sessionId: string): Promise<boolean> {
    return (await redisCall(() => this.redis.exists(`ws:session:${sessionId}`))) === 1;
  }
}
