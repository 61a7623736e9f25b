import { decodeRawTransaction, RawTransactionError } from '../../../../lib/bitcoin/raw-tx.js';

/** JSON-RPC error codes (the standard ones, and ElectrumX's for a request the server refuses). */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  badRequest: 1,
  daemonError: 2,
} as const;

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** Positional or named params, read by position with the names the protocol documents. */
export class Params {
  constructor(
    private readonly method: string,
    private readonly raw: unknown,
    private readonly names: readonly string[],
  ) {
    if (raw !== undefined && raw !== null && typeof raw !== 'object') {
      throw new RpcError(ErrorCode.invalidParams, `${method}: params must be an array or an object`);
    }
  }

  value(index: number): unknown {
    if (Array.isArray(this.raw)) return this.raw[index];
    if (this.raw && typeof this.raw === 'object') return (this.raw as Record<string, unknown>)[this.names[index]!];
    return undefined;
  }

  private fail(index: number, expected: string): never {
    throw new RpcError(
      ErrorCode.invalidParams,
      `${this.method}: parameter ${this.names[index] ?? index} must be ${expected}`,
    );
  }

  hash(index: number): string {
    const value = this.value(index);
    if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) this.fail(index, 'a 64-character hex hash');
    return value.toLowerCase();
  }

  hex(index: number): string {
    const value = this.value(index);
    if (typeof value !== 'string' || value.length === 0 || value.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(value)) {
      this.fail(index, 'a hex string');
    }
    return value;
  }

  /** One whole serialized transaction, as hex (btcd would ignore bytes after it; Bitcoin Core refuses them). */
  rawTransaction(index: number): string {
    const hex = this.hex(index);
    try {
      decodeRawTransaction(hex);
    } catch (error) {
      if (!(error instanceof RawTransactionError)) throw error;
      throw new RpcError(ErrorCode.invalidParams, `${this.method}: parameter ${this.names[index]} ${error.message}`);
    }
    return hex;
  }

  nonNegativeInt(index: number, fallback?: number): number {
    const value = this.value(index) ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) this.fail(index, 'a non-negative integer');
    return value;
  }

  bool(index: number, fallback: boolean): boolean {
    const value = this.value(index) ?? fallback;
    if (typeof value !== 'boolean') this.fail(index, 'true or false');
    return value;
  }
}
