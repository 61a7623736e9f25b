// The parameters of the protocol's methods, each refused with the protocol's own code.
import { RpcCode, RpcFailure } from './protocol.js';

/** Longest recipient or attachment id accepted (rgb-lib's are well under 100 characters). */
const MAX_ID_LENGTH = 256;
const MAX_VOUT = 0xffff_ffff;

/**
 * Params as sent: JSON values, or the text of `params[name]` multipart fields, where a vout or an
 * ACK can only arrive as text.
 */
export class MethodParams {
  private readonly values: Record<string, unknown>;

  constructor(
    raw: unknown,
    private readonly fromFormFields = false,
  ) {
    this.values =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  }

  private id(name: string, missingCode: number, invalidCode: number, label: string): string {
    const value = this.values[name];
    if (value === undefined || value === null)
      throw new RpcFailure(missingCode, `Missing ${label}: give params.${name}`);
    if (typeof value !== 'string' || value === '' || value.length > MAX_ID_LENGTH) {
      throw new RpcFailure(
        invalidCode,
        `Invalid ${label}: params.${name} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
      );
    }
    return value;
  }

  recipientId(): string {
    return this.id('recipient_id', RpcCode.missingRecipientId, RpcCode.invalidRecipientId, 'recipient ID');
  }

  attachmentId(): string {
    return this.id('attachment_id', RpcCode.missingAttachmentId, RpcCode.invalidAttachmentId, 'attachment ID');
  }

  txid(): string {
    const value = this.values.txid;
    if (value === undefined || value === null)
      throw new RpcFailure(
        RpcCode.missingFileOrTxid,
        'Missing TXID: give params.txid, the transaction the consignment commits to',
      );
    if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value))
      throw new RpcFailure(RpcCode.invalidTxid, 'Invalid TXID: params.txid must be 64 hex characters');
    return value.toLowerCase();
  }

  /** Optional: the output of a witness recipient. */
  vout(): number | undefined {
    const value = this.values.vout;
    if (value === undefined || value === null) return undefined;
    const vout = this.fromFormFields && typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
    if (typeof vout !== 'number' || !Number.isInteger(vout) || vout < 0 || vout > MAX_VOUT) {
      throw new RpcFailure(
        RpcCode.invalidVout,
        `Invalid vout: params.vout must be an output index from 0 to ${MAX_VOUT}`,
      );
    }
    return vout;
  }

  ack(): boolean {
    const value = this.values.ack;
    if (value === undefined || value === null)
      throw new RpcFailure(
        RpcCode.missingAck,
        'Missing ACK: give params.ack, true to accept the consignment or false to refuse it',
      );
    const ack = this.fromFormFields && (value === 'true' || value === 'false') ? value === 'true' : value;
    if (typeof ack !== 'boolean')
      throw new RpcFailure(RpcCode.invalidAck, 'Invalid ACK: params.ack must be true or false');
    return ack;
  }
}
