// Requests rgb-lib would take and act on although nothing good can come of them: an invoice for 0 of
// an asset (rgb-lib reserves a UTXO for it), a recipient with no transport endpoint (the send is made
// and waits for an ACK that cannot come, its asset locked until the transfer expires), other zero
// amounts; and empty lists, said in words rather than as a schema path. They are refused here,
// before rgb-lib is asked, with RLN's error names, so nothing changes.
import type { RlnAssignment } from './convert.js';
import { invalidAmount, invalidRequest, invalidTransportEndpoints } from './errors.js';

/** A count or an amount that must be 1 or more; `what` names it as the caller sent it. */
export function checkPositive(value: number, what: string): void {
  if (value < 1) throw invalidAmount(`${what} must be 1 or more, not ${value}`);
}

/** An assignment of an amount, and that amount 0 (a token or "any amount" carry none). */
const isZeroAmount = (assignment: RlnAssignment) =>
  (assignment.type === 'Fungible' || assignment.type === 'InflationRight') && assignment.value < 1;

/** An invoice's assignment: any amount, a token, or 1 or more of a fungible asset. */
export function checkInvoiceAssignment(assignment: RlnAssignment): void {
  if (isZeroAmount(assignment))
    throw invalidAmount(
      'an invoice for 0 cannot be paid: ask for 1 or more, or leave assignment out to receive any amount',
    );
}

/** One recipient of /sendrgb (OLD /sendasset's flat body makes one). */
export interface RlnRecipient {
  recipient_id: string;
  witness_data?: { amount_sat: number; blinding?: number | null } | null;
  assignment: RlnAssignment;
  transport_endpoints: string[];
}

/** What a send pays each recipient, and where its consignment goes. */
export function checkRecipients(recipientMap: Record<string, RlnRecipient[]>): void {
  if (Object.keys(recipientMap).length === 0)
    throw invalidRequest('recipient_map names no asset: give { "<asset id>": [recipients] }');
  for (const [assetId, recipients] of Object.entries(recipientMap)) {
    if (recipients.length === 0) throw invalidRequest(`recipient_map names no recipient for ${assetId}`);
    for (const recipient of recipients) {
      const who = `recipient ${recipient.recipient_id}`;
      if (recipient.transport_endpoints.length === 0)
        throw invalidTransportEndpoints(
          `${who} names none: give the consignment proxy its invoice names (e.g. rpc://127.0.0.1:3000/json-rpc), where the payee takes the consignment from`,
        );
      if (isZeroAmount(recipient.assignment)) throw invalidAmount(`${who} is sent 0 of ${assetId}: send 1 or more`);
      if (recipient.witness_data) checkPositive(recipient.witness_data.amount_sat, `${who}: witness_data.amount_sat`);
    }
  }
}
