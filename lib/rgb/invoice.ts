import { rgbLibRequest } from './rgb-lib-thread.js';
import type { InvoiceData } from './types.js';

/** What an RGB invoice asks for: recipient, asset, assignment, expiry, transport endpoints. */
export async function decodeRgbInvoice(invoice: string): Promise<InvoiceData> {
  return (await rgbLibRequest({ op: 'module', fn: 'invoiceData', args: [invoice] })) as InvoiceData;
}
