import { rateLimited, unavailable } from '../../../lib/errors.js';
import type { Cooldowns, CooldownSubject } from './cooldown.js';

const duration = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`);

const PAYEE_WORDS: Record<Exclude<CooldownSubject, 'ip'>, string> = {
  address: 'address',
  recipient: 'invoice recipient',
};

/**
 * Takes a claim's cool-down (its client IP and its payee) before anything is paid, or refuses the
 * claim: 429 COOLDOWN saying who claimed and when to try again, 503 while Redis cannot be reached
 * (nothing is paid while cool-downs cannot be enforced). Returns the release for a claim that paid nothing.
 */
export async function takeCooldown(
  cooldowns: Cooldowns,
  clientIp: string,
  payee: string,
): Promise<() => Promise<void>> {
  const cooldown = await cooldowns.acquire(clientIp, payee).catch((error: unknown) => {
    throw unavailable(
      'COOLDOWN_STORE_UNAVAILABLE',
      `the faucet cannot reach its cool-down store (Redis), so it pays nobody until it can: ${(error as Error).message}`,
    );
  });
  if (!cooldown.granted) {
    const who = cooldown.blockedBy
      .map((subject) => (subject === 'ip' ? `your IP ${clientIp}` : `${PAYEE_WORDS[subject]} ${payee}`))
      .join(' and ');
    const refusal = rateLimited(
      'COOLDOWN',
      `${who} claimed less than ${duration(cooldowns.seconds)} ago; try again in ${cooldown.retryAfterSeconds} s`,
      cooldown.retryAfterSeconds,
    );
    refusal.details.blocked_by = cooldown.blockedBy;
    throw refusal;
  }
  return () => cooldown.release().catch(() => undefined);
}
