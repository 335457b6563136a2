/**
 * The hosted checkout page at `checkoutUrl` (`/checkout/<transactionReference>`): a person (or a browser test)
 * sees the amount and pays, fails or cancels. The action moves the transaction (PAID with the full amount paid,
 * FAILED or CANCELLED with nothing paid), queues the signed webhook for the forwarding URL, and the browser is
 * sent back (303) to the checkout's `redirectUrl` — Provider N has one return URL for every outcome.
 */
import {
  addHostedPages,
  type HostedPageView,
  type PayerAction,
  type Routes,
  type WebhookForwarder,
} from '@pay/core/testing';
import { decimalString } from './payloads.js';
import type { PayerOutcome, ProviderNLedger, StoredTransaction } from './state.js';

/** The page route; `:id` is the transaction reference (URL-encoded: it contains `|`). */
export const CHECKOUT_PAGE_PATH = '/checkout/:id';

/** What each action on the page does to the transaction. */
export const PAYER_OUTCOMES: ReadonlyMap<PayerAction, PayerOutcome> = new Map([
  ['pay', 'PAID'],
  ['fail', 'FAILED'],
  ['cancel', 'CANCELLED'],
]);

/** The page's view of a transaction: the actions are offered only while it is PENDING. */
function checkoutView(transaction: StoredTransaction): HostedPageView {
  const amount = decimalString(transaction.amountMinor, transaction.currency);
  return {
    provider: 'Provider N',
    heading: `Pay ${transaction.currency} ${amount}`,
    details: [
      ['Merchant', 'Simulated Merchant'],
      ['Description', transaction.paymentDescription || 'Payment'],
      ['Payer', transaction.customerEmail],
      ['Reference', transaction.transactionReference],
      ['Status', transaction.paymentStatus],
    ],
    actions: transaction.paymentStatus === 'PENDING' ? ['pay', 'fail', 'cancel'] : [],
    successUrl: transaction.redirectUrl,
  };
}

/**
 * Adds the checkout page. `changed` is called after the books moved, with the transaction and the action, and
 * queues the webhook (index.ts); the page waits for the forwarder before it redirects, so the application has
 * its webhook when the payer lands back on it.
 */
export function addCheckoutPage(
  routes: Routes,
  options: {
    ledger: ProviderNLedger;
    forwarder: WebhookForwarder;
    changed(transaction: StoredTransaction, action: PayerAction): void;
  },
): void {
  addHostedPages(routes, {
    provider: 'Provider N',
    path: CHECKOUT_PAGE_PATH,
    forwarder: options.forwarder,
    find: (id) => {
      const transaction = options.ledger.transactions.get(id);
      return transaction && checkoutView(transaction);
    },
    act: (id, action) => payerAction(options, id, action),
  });
}

/** One payer action: the books move, then the webhook is queued. Throws for a transaction no longer PENDING. */
export function payerAction(
  options: { ledger: ProviderNLedger; changed(transaction: StoredTransaction, action: PayerAction): void },
  id: string,
  action: PayerAction,
): void {
  const outcome = PAYER_OUTCOMES.get(action);
  if (!outcome) throw new Error(`Unknown payer action ${action}.`);
  options.changed(options.ledger.payerAction(id, outcome), action);
}
