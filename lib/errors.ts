/**
 * A readable message from anything thrown. The `lightning` library rejects with arrays such as
 * [503, 'UnexpectedPaymentError', { err }] rather than Error objects.
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (Array.isArray(error)) {
    const [, code, details] = error as [number, string, { err?: { details?: string; message?: string } } | undefined];
    const detail = details?.err?.details ?? details?.err?.message;
    return detail ? `${code}: ${detail}` : String(code);
  }
  return String(error);
}
