/**
 * `pay dev` is safe to leave running (docs/architecture.md#pay-dev): a page on another origin the developer happens
 * to open cannot pay, fail or cancel a checkout on a simulator's hosted page, nor frame it, while the payer's own
 * click on the page still works.
 */
import type { Payment } from '@pay/core';
import { escapeHtml, type LoopbackServer, startLoopbackServer } from '@pay/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { chromiumForTests, chromiumPath } from './browser.js';
import { type OpenCheckout, SCENARIOS } from './scenarios.js';
import { type Shop, startShop } from './shop.js';

/** Another web page on this machine (another loopback port: the same site as the simulator, another origin). */
async function startOtherPage(html: string): Promise<LoopbackServer> {
  return startLoopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
}

/** The simulator's books without its request log (which records the refused POST itself). */
function booksOf(checkout: OpenCheckout): string {
  const { requests: _requests, ...books } = checkout.books() as Record<string, unknown>;
  return JSON.stringify(books);
}

/** The payment's statuses in the verified events the shop got (`payment.*` events only). */
function reportedStatuses(shop: Shop, checkout: OpenCheckout): Payment['status'][] {
  return shop.events
    .filter((event) => event.type.startsWith('payment.'))
    .map((event) => event.data as Payment)
    .filter((payment) => payment.id === checkout.paymentId)
    .map((payment) => payment.status);
}

/** Waits until no forwarded webhook is in flight (Provider T reports the commit itself). */
async function deliveriesSettled(checkout: OpenCheckout): Promise<void> {
  await vi.waitFor(() =>
    expect(checkout.deliveries().filter((delivery) => delivery.state === 'pending')).toEqual([]),
  );
}

/** A page that POSTs `action=pay` to `target` as soon as it loads, as a hostile page would. */
const autoSubmit = (target: string) =>
  `<!doctype html><title>Free mugs</title><form id="f" method="post" action="${escapeHtml(target)}">` +
  '<input type="hidden" name="action" value="pay"></form><script>document.getElementById("f").submit()</script>';

describe.skipIf(!chromiumPath)('hosted pages refuse other pages in headless Chromium', () => {
  const browser = chromiumForTests();

  describe.each(SCENARIOS)('$provider', (scenario) => {
    it("a page on another loopback origin auto-submits Pay: 403, the simulator's books unchanged, no webhook; the payer's own click then pays", async () => {
      const shop = await startShop();
      const checkout = await scenario.open(shop);
      const other = await startOtherPage(autoSubmit(checkout.pageUrl));
      const page = await browser().newPage();
      try {
        await deliveriesSettled(checkout);
        const before = {
          books: booksOf(checkout),
          deliveries: checkout.deliveries().length,
          events: shop.events.length,
          status: (await checkout.retrieve())?.status,
        };
        const refused = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.goto(other.url);
        expect((await refused).status()).toBe(403);
        await page.waitForLoadState('load');
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Action refused');
        await deliveriesSettled(checkout);
        expect(booksOf(checkout)).toBe(before.books);
        expect(checkout.deliveries()).toHaveLength(before.deliveries);
        expect(shop.events).toHaveLength(before.events);
        expect((await checkout.retrieve())?.status).toBe(before.status);

        await page.goto(checkout.pageUrl);
        await page.getByRole('button', { name: 'Pay', exact: true }).click();
        await page.waitForLoadState('load');
        expect(page.url()).toBe(checkout.landing.pay);
        expect(booksOf(checkout)).not.toBe(before.books);
        expect(checkout.deliveries().length).toBeGreaterThan(before.deliveries);
        expect((await checkout.retrieve())?.status).toBe('succeeded');
        expect(reportedStatuses(shop, checkout).at(-1)).toBe('succeeded');
      } finally {
        await page.close();
        await other.close();
        await checkout.close();
        await shop.server.close();
      }
    });

    it('forbids framing: the page says so in its headers, and a frame on another page shows no button', async () => {
      const shop = await startShop();
      const checkout = await scenario.open(shop);
      const other = await startOtherPage(
        `<!doctype html><title>Framed</title><iframe name="checkout" src="${escapeHtml(checkout.pageUrl)}"></iframe>`,
      );
      const page = await browser().newPage();
      try {
        const direct = await page.goto(checkout.pageUrl);
        expect(direct?.headers()['x-frame-options']).toBe('DENY');
        expect(direct?.headers()['content-security-policy']).toBe("frame-ancestors 'none'");

        await page.goto(other.url);
        await page.waitForLoadState('load');
        const frame = page.frame({ name: 'checkout' });
        expect(frame).not.toBeNull();
        expect(await frame?.getByRole('button').count()).toBe(0);
        expect(frame?.url()).not.toBe(checkout.pageUrl);
      } finally {
        await page.close();
        await other.close();
        await checkout.close();
        await shop.server.close();
      }
    });
  });
});
