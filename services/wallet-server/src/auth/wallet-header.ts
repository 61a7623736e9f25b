import type { FastifyRequest } from 'fastify';

/** The header naming the wallet a payment call acts on (spec §4.1). */
export const WALLET_KEY_HEADER = 'x-service-wallet-key';

export function walletKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers[WALLET_KEY_HEADER];
  return Array.isArray(raw) ? raw[0] : raw;
}
