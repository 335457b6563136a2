/**
 * The hosted receipt page of the Provider T simulator (docs/architecture.md#local-loop,
 * docs/providers/provider-t.md#commit): the commit's `commitReceipt.consumerHyperLink` (the Checkout's
 * `payment_url`, the Payment's `metadata.receiptUrl`) opens a page, valid 5 minutes, where a person confirms the
 * payout, fails or cancels the transfer. The action moves the transfer (state.ts), the status webhook goes out
 * signed to the forwarding URL, and the browser is sent back (303) to the receipt page, which then shows the
 * outcome: Provider T's wire contract (docs/providers/provider-t.md#webhooks) carries no merchant return URL, so
 * the receipt itself is where the person lands.
 */

import { minorDigits } from '@pay/core/adapter';
import {
  addHostedPages,
  htmlReply,
  type PayerAction,
  type RouteRequest,
  Routes,
  renderNotice,
  type WebhookForwarder,
} from '@pay/core/testing';
import { amounts, FINAL_STATUSES, type Reply } from './replies.js';
import type { SimulatorContext } from './state.js';
import type { SimulatedTransfer } from './types.js';

/** Options of {@link addReceiptPages}. */
export interface ReceiptPagesOptions {
  context: SimulatorContext;
  /** Applies a payer action to a transfer (the books move it and the webhook is queued). */
  act(transactionId: string, action: PayerAction): Promise<void>;
  /** The page waits for it before the redirect, so the application has its webhook when the person lands. */
  forwarder: WebhookForwarder;
}

const PROVIDER = 'Provider T';
const PATH = '/receipts/:id';

/** What the receipt page says a status means to the person looking at it. */
const STATUS_TEXT: ReadonlyMap<string, string> = new Map([
  ['UNFUNDED', 'Waiting for the sender to pay'],
  ['PROCESSING', 'Processing'],
  ['SENT', 'Sent: ready for payout'],
  ['AVAILABLE', 'Available for payout'],
  ['IN TRANSIT', 'In transit'],
  ['RECEIVED', 'Received: paid out to the receiver'],
  ['DELIVERED', 'Delivered to the receiver'],
  ['REJECTED', 'Rejected'],
  ['REFUNDED', 'Refunded to the sender'],
  ['CLOSED', 'Cancelled'],
]);

/** A wire amount with the currency's minor digits, e.g. `100.00 USD`. */
function shown(amount: { value: number; currencyCode: string }): string {
  return `${amount.value.toFixed(minorDigits(amount.currencyCode))} ${amount.currencyCode}`;
}

/** The name parts of a person, as one line. */
function fullName(name: unknown): string {
  if (typeof name !== 'object' || name === null) return '';
  const parts = ['firstName', 'middleName', 'lastName', 'secondLastName'].map((part) =>
    Object.hasOwn(name, part) ? (name as Record<string, unknown>)[part] : undefined,
  );
  return parts.filter((part): part is string => typeof part === 'string' && part !== '').join(' ');
}

/**
 * Adds `GET` and `POST /receipts/:id` to `routes`: while the link lives, the kit's hosted page for the transfer
 * (pay, fail, cancel until it is final); after 5 minutes, 410 as the provider's receipt link does.
 */
export function addReceiptPages(routes: Routes, options: ReceiptPagesOptions): void {
  const { books } = options.context;
  const live = (token: string) => {
    const link = books.receipts.get(token);
    return link && link.expiresAt > books.now() ? link : undefined;
  };
  const page = new Routes();
  addHostedPages(page, {
    provider: PROVIDER,
    path: PATH,
    forwarder: options.forwarder,
    find(token) {
      const link = live(token);
      const transfer = link && books.committedTransfer(link.transactionId);
      return transfer && view(transfer, `${options.context.baseUrl()}/receipts/${encodeURIComponent(token)}`);
    },
    async act(token, action) {
      const link = live(token);
      if (!link) throw new Error('The receipt link has expired.');
      await options.act(link.transactionId, action);
    },
  });
  const answer = async (request: RouteRequest): Promise<Reply> => {
    if (!live(request.params.id ?? '')) {
      return htmlReply(
        410,
        renderNotice(
          PROVIDER,
          'Receipt link expired',
          'A receipt link works for 5 minutes after the commit.',
        ),
      );
    }
    return (await page.handle(request)) ?? htmlReply(404, renderNotice(PROVIDER, 'Not found', request.path));
  };
  routes.get(PATH, answer).post(PATH, answer);
}

/** The page's view of a committed transfer; it returns to its own receipt link after every action. */
function view(transfer: SimulatedTransfer, receiptUrl: string) {
  const final = FINAL_STATUSES.has(transfer.status);
  const { total } = amounts(transfer).sendAmount;
  return {
    provider: PROVIDER,
    heading: `Transfer ${transfer.referenceNumber ?? transfer.transactionId}`,
    details: [
      ['Reference number', transfer.referenceNumber ?? ''],
      ['Status', `${transfer.status} (${STATUS_TEXT.get(transfer.status) ?? transfer.status})`],
      ['Send amount', shown(transfer.sendAmount)],
      ['Fees', shown(transfer.fees)],
      ['Total', shown(total)],
      ['Receive amount', shown(transfer.receiveAmount)],
      ['Sender', fullName((transfer.sender as { name?: unknown } | undefined)?.name)],
      ['Receiver', fullName(transfer.receiver?.name)],
      ['Expected payout', transfer.expectedPayoutDate ?? ''],
    ] as const,
    actions: final ? [] : (['pay', 'fail', 'cancel'] as const),
    successUrl: receiptUrl,
    cancelUrl: receiptUrl,
  };
}
