/**
 * The hosted page of the Provider R simulator at the redirect URL the creations return
 * (`/client/instructions/index?id=<transId>`): a person pays, fails or cancels there. The action changes the
 * transaction (PAID, or CANCELLED for a failed or cancelled payment, the provider's only final statuses), the
 * push notification is delivered to the forwarding URL, and the browser gets 303 to the merchant's `url_paid` or
 * `url_cancelled`. The page is the kit's (every value HTML-escaped); the id travels in the query string, as on
 * the provider's page, so the routes are this file's.
 */
import { toMajorUnits } from '@pay/core';
import {
  formBody,
  type HostedPageView,
  htmlReply,
  type PayerAction,
  type Routes,
  redirectReply,
  renderHostedPage,
  renderNotice,
  type SimulatorReply,
  type WebhookForwarder,
} from '@pay/core/testing';
import type { ProviderRLedger, SimulatedTransaction, Transition } from './state.js';

/** The path of the hosted page (wire contract, "createCheckout": `redirect`). */
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

/** The merchant URL after `action`, when it is an http(s) URL. */
function returnUrl(view: HostedPageView, action: PayerAction): string | undefined {
  const candidate = action === 'pay' ? view.successUrl : view.cancelUrl;
  if (candidate === undefined || !/^https?:\/\//i.test(candidate)) return undefined;
  return candidate;
}

/** Adds GET (the page) and POST (the payer's action) of the hosted page to `routes`. */
export function addHostedPage(
  routes: Routes,
  ledger: ProviderRLedger,
  act: (transId: string, action: PayerAction) => void,
  forwarder: WebhookForwarder,
): void {
  const unknown = () => htmlReply(404, renderNotice(PROVIDER, 'Unknown payment', 'No such payment.'));
  const transactionOf = (id: string | undefined) => (id ? ledger.transactions.get(id) : undefined);
  routes.get(HOSTED_PAGE_PATH, (request) => {
    const transaction = transactionOf(request.query.id);
    if (!transaction) return unknown();
    const action = `${HOSTED_PAGE_PATH}?id=${encodeURIComponent(transaction.transId)}`;
    return htmlReply(200, renderHostedPage(viewOf(transaction), action));
  });
  routes.post(HOSTED_PAGE_PATH, async (request): Promise<SimulatorReply> => {
    const transaction = transactionOf(request.query.id);
    if (!transaction) return unknown();
    const view = viewOf(transaction);
    const action = formBody(request).action as PayerAction;
    if (!view.actions.includes(action)) {
      const text = `"${action}" is not possible now (offered: ${view.actions.join(', ') || 'nothing'}).`;
      return htmlReply(409, renderNotice(PROVIDER, 'Action not available', text));
    }
    act(transaction.transId, action);
    // The app has its push before the payer lands on its return page (a bounded wait: a dead endpoint is
    // redelivered in the background).
    await Promise.race([forwarder.idle(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    const target = returnUrl(view, action);
    if (target) return redirectReply(target);
    const done = action === 'pay' ? 'Paid' : action === 'fail' ? 'Payment failed' : 'Payment cancelled';
    return htmlReply(200, renderNotice(PROVIDER, done, 'The merchant gave no return URL.'));
  });
}
