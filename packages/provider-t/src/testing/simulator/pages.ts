/**
 * The Provider T simulator's receipt links (wire contract "Transfer" step 3: `commitReceipt.consumerHyperLink`,
 * valid 5 minutes).
 */
import { json, providerError, type Reply } from './replies.js';
import type { SimulatorContext } from './state.js';

/** A request to `/receipts/<token>`. */
export interface ReceiptRequest {
  method: string;
  token: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers a receipt link: the transfer it shows while the link lives, 410 after. */
export async function receiptPage(context: SimulatorContext, request: ReceiptRequest): Promise<Reply> {
  const { books } = context;
  const found = books.receipts.get(request.token);
  if (!found || found.expiresAt <= books.now())
    return providerError(410, 'RECEIPT_EXPIRED', 'The receipt link has expired');
  const transfer = books.transfers.get(found.transactionId);
  return json(200, {
    transactionId: found.transactionId,
    referenceNumber: transfer?.referenceNumber,
    status: transfer?.status,
  });
}
