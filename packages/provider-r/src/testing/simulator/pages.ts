/**
 * The hosted page of the Provider R simulator at the redirect URL the creations return
 * (`/client/instructions/index?id=<transId>`): a person pays, fails or cancels there. The action changes the
 * transaction (PAID, or CANCELLED for a failed or cancelled payment, the provider's only final statuses), the
 * push notification is delivered to the forwarding URL, and the browser gets 303 to the merchant's `url_paid` or
 * `url_cancelled` (without `url_cancelled`, a failed or cancelled payment goes to `url_paid`: the kit's
 * fallback). Page and routes are the kit's (every value HTML-escaped); the id travels in the query string, as on
 * the provider's page.
 */
import { toMajorUnits } from '@pay/core/adapter';
import {
  addHostedPages,
  type HostedPageView,
  type PayerAction,
  type Routes,
  type WebhookForwarder,
} from '@pay/core/testing';
import type { ProviderRLedger, SimulatedTransaction, Transition } from './state.js';

/** The path of the hosted page (docs/providers/provider-r.md#create-checkout: `redirect`). */
export const HOSTED_PAGE_PATH = '/client/instructions/index';
const PROVIDER = 'Provider R';

/** What each payer action does to the transaction: the provider has no failed status, a failure cancels. */
export const PAYER_TRANSITIONS: ReadonlyMap<PayerAction, Transition> = new Map([
  ['pay', 'pay'],
  ['fail', 'cancel'],
  ['cancel', 'cancel'],
]);

/** The page's view of a transaction. */
function viewOf(transaction: SimulatedTransaction): HostedPageView {
  const open = transaction.status === 'PENDING' || transaction.status === 'AUTHORIZED';
  return {
    provider: PROVIDER,
    heading: `Pay ${transaction.curr} ${toMajorUnits(transaction.price, transaction.curr).toFixed(2)}`,
    details: [
      ['Label', transaction.label],
      ['Reference', transaction.refId ?? '—'],
      ['Payer', transaction.email],
      ['Transaction', transaction.transId],
      ['Status', transaction.status],
    ],
    actions: open ? ['pay', 'fail', 'cancel'] : [],
    successUrl: transaction.urls.paid,
    cancelUrl: transaction.urls.cancelled,
  };
}

/**
 * Adds the hosted page to `routes`: the kit's GET (the page) and POST (the payer's action), with the payment id
 * read from the query string (`?id=<transId>`, as on the provider's page); the forms post back with it.
 */
export function addHostedPage(
  routes: Routes,
  ledger: ProviderRLedger,
  act: (transId: string, action: PayerAction) => void,
  forwarder: WebhookForwarder,
): void {
  addHostedPages(routes, {
    provider: PROVIDER,
    path: HOSTED_PAGE_PATH,
    idOf: (request) => request.query.id,
    find: (id) => {
      const transaction = ledger.transactions.get(id);
      return transaction ? viewOf(transaction) : undefined;
    },
    act,
    forwarder,
  });
}
