import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Who a cool-down holds back: the client's IP, and what the claim pays (a BTC address, an RGB invoice's recipient). */
export type CooldownSubject = 'ip' | 'address' | 'recipient';

export type CooldownResult =
  | { granted: true; release(): Promise<void> }
  | { granted: false; retryAfterSeconds: number; blockedBy: CooldownSubject[] };

// Both keys are checked and set in one atomic step (a Lua script runs alone on the Redis server):
// either neither exists and both are set with the cool-down as their expiry (a SET NX for the pair),
// or nothing changes and the caller learns which keys block it and for how long.
const ACQUIRE = `
local blocked = {}
local wait = 0
for i, key in ipairs(KEYS) do
  local ttl = redis.call('PTTL', key)
  if ttl ~= -2 then
    if ttl == -1 then ttl = tonumber(ARGV[2]) end
    table.insert(blocked, i)
    if ttl > wait then wait = ttl end
  end
end
if #blocked > 0 then return {wait, blocked} end
for _, key in ipairs(KEYS) do redis.call('SET', key, ARGV[1], 'PX', ARGV[2], 'NX') end
return {0, blocked}
`;

// Deletes only keys still holding this claim's token, so a late release cannot free a later claim's cool-down.
const RELEASE = `
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then released = released + redis.call('DEL', key) end
end
return released
`;

/**
 * The faucet's cool-downs in Redis: one claim per client IP and per payee in each period. `payee`
 * names what a claim pays (BTC claims: `address`; asset claims, under their own prefix: `recipient`).
 */
export class Cooldowns {
  constructor(
    private readonly redis: Redis,
    readonly seconds: number,
    private readonly prefix = 'faucet:cooldown',
    readonly payee: Exclude<CooldownSubject, 'ip'> = 'address',
  ) {}

  private keys(ip: string, payee: string) {
    return [`${this.prefix}:ip:${ip}`, `${this.prefix}:${this.payee}:${payee}`];
  }

  async acquire(ip: string, payee: string): Promise<CooldownResult> {
    const keys = this.keys(ip, payee);
    const token = randomUUID();
    const [waitMs, blocked] = (await this.redis.eval(
      ACQUIRE,
      keys.length,
      ...keys,
      token,
      String(this.seconds * 1000),
    )) as [number, number[]];
    if (waitMs > 0) {
      const subjects: CooldownSubject[] = ['ip', this.payee];
      return {
        granted: false,
        retryAfterSeconds: Math.ceil(waitMs / 1000),
        blockedBy: blocked.map((index) => subjects[index - 1]!),
      };
    }
    return {
      granted: true,
      release: async () => {
        await this.redis.eval(RELEASE, keys.length, ...keys, token);
      },
    };
  }
}
