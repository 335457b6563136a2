/**
 * `pay dev`'s event log in headless Chromium (docs/architecture.md#pay-dev): `pay dev provider-n` with every
 * webhook dropped and the shop's real handler as `--forward`; the payer pays on the hosted page, the event log shows
 * the dropped delivery, "Send again" delivers it and the page shows the shop's 2xx answer. A page on another
 * origin cannot press the button for the developer.
 */
import { fileURLToPath } from 'node:url';
import { main } from '@pay/cli';
import { createPay, type Payment, toNodeListener } from '@pay/core';
import { EVENT_LOG_PATH, escapeHtml, startLoopbackServer } from '@pay/core/testing';
import { createProviderN } from '@pay/provider-n';
import type { Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { chromiumForTests, chromiumPath } from './browser.js';
import { type Shop, startShop } from './shop.js';

/** This package's folder: `pay dev` finds `@pay/provider-n` among its devDependencies, as in an app. */
const APP_FOLDER = fileURLToPath(new URL('..', import.meta.url));

/** `pay dev provider-n --drop-webhooks all` forwarding to the shop, with an app wired to the shop's handler. */
async function payDevDroppingAll(shop: Shop) {
  const stop = new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const running = main(
    ['dev', 'provider-n', '--port', '0', '--forward', shop.webhookUrl, '--drop-webhooks', 'all'],
    {
      out: (line) => void out.push(line),
      err: (line) => void err.push(line),
      stop: stop.signal,
      cwd: APP_FOLDER,
    },
  );
  await vi.waitFor(() => expect(out.includes('Press Ctrl+C to stop.') || err.length > 0).toBe(true), {
    timeout: 30_000,
  });
  expect(err).toEqual([]);
  const env = Object.fromEntries(
    out.flatMap((line) => {
      const match = /^ {2}(PROVIDER_N_[A-Z_]+)=(.*)$/.exec(line);
      return match ? [[match[1] as string, match[2] as string]] : [];
    }),
  );
  const pay = createPay(
    createProviderN({
      apiKey: env.PROVIDER_N_API_KEY ?? '',
      secretKey: env.PROVIDER_N_SECRET_KEY ?? '',
      contractCode: env.PROVIDER_N_CONTRACT_CODE ?? '',
      isSandbox: true,
      baseUrl: env.PROVIDER_N_BASE_URL ?? '',
    }),
  );
  shop.useWebhooks(
    toNodeListener(
      pay.webhooks
        .setup({ webhookSecret: env.PROVIDER_N_SECRET_KEY ?? '' })
        .onAny((event) => void shop.events.push(event)),
    ),
  );
  const eventLog = `${env.PROVIDER_N_BASE_URL}${EVENT_LOG_PATH}`;
  expect(out).toContain(`Event log (objects, reads, webhook deliveries, send again): ${eventLog}`);
  return {
    pay,
    eventLog,
    out,
    async stop() {
      stop.abort();
      return running;
    },
  };
}

/** A checkout the payer pays in the browser, landing back on the shop. */
async function payInBrowser(
  page: Page,
  shop: Shop,
  pay: Awaited<ReturnType<typeof payDevDroppingAll>>['pay'],
) {
  const checkout = await pay.checkouts.create({
    customer: { email: 'ada@shop.test' },
    item_id: 'blue-mug',
    success_url: shop.returnedUrl,
    provider_metadata: { amount: 5000, currency: 'NGN', customerName: 'Ada Obi' },
  });
  await page.goto(checkout.payment_url ?? '');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await page.waitForURL(shop.returnedUrl);
  return checkout;
}

/** The payment statuses the shop's handler was told. */
const toldStatuses = (shop: Shop) =>
  shop.events
    .filter((event) => event.type.startsWith('payment.'))
    .map((event) => (event.data as Payment).status);

describe.skipIf(!chromiumPath)("pay dev's event log in headless Chromium", () => {
  const browser = chromiumForTests();

  it('shows the dropped webhook of a paid checkout; Send again delivers it: the shop answers 2xx and is told', async () => {
    const shop = await startShop();
    const dev = await payDevDroppingAll(shop);
    const page = await browser().newPage();
    try {
      const checkout = await payInBrowser(page, shop, dev.pay);
      await vi.waitFor(() =>
        expect(
          dev.out.some((line) => line.endsWith('SUCCESSFUL_TRANSACTION dropped (--drop-webhooks), not sent')),
        ).toBe(true),
      );
      expect(toldStatuses(shop)).toEqual([]);
      // The shop reads the payment when the payer is back (no webhook came): the page lists that read.
      expect((await dev.pay.payments.retrieve(checkout.id))?.status).toBe('succeeded');

      await page.goto(dev.eventLog);
      expect(await page.title()).toBe('Provider N (simulator): event log');
      const payment = page.locator('tr', { hasText: checkout.id }).first();
      await expect.poll(() => payment.textContent()).toContain('PAID');
      expect(await payment.textContent()).toMatch(/GET \/v1\/merchant\/transactions\/query: HTTP 200/);
      const delivery = page.locator('tr#whd_000001');
      expect(await delivery.locator('td').nth(1).textContent()).toBe('SUCCESSFUL_TRANSACTION');
      expect(await delivery.locator('td').nth(3).textContent()).toBe('dropped');
      expect(await delivery.locator('td').nth(4).textContent()).toBe('not sent');

      await delivery.getByRole('button', { name: 'Send again' }).click();
      await page.waitForURL(`${dev.eventLog}#whd_000001`);
      const sent = page.locator('tr#whd_000001');
      expect(await sent.locator('td').nth(3).textContent()).toBe('delivered');
      expect(await sent.locator('td').nth(4).textContent()).toMatch(/^\d\d:\d\d:\d\d HTTP 200$/);
      expect(toldStatuses(shop)).toEqual(['succeeded']);
    } finally {
      await page.close();
      expect(await dev.stop()).toBe(0);
      await shop.server.close();
    }
  });

  it("a page on another loopback origin that posts the page's own Send again form gets 403: nothing is sent", async () => {
    const shop = await startShop();
    const dev = await payDevDroppingAll(shop);
    const page = await browser().newPage();
    try {
      await payInBrowser(page, shop, dev.pay);
      // Even with the page's token in hand (as if it had leaked), the browser says the POST is not the page's own.
      const html = await (await fetch(dev.eventLog)).text();
      const token = /name="token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
      expect(token).not.toBe('');
      const other = await startLoopbackServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><title>Free mugs</title><form id="f" method="post" action="${escapeHtml(dev.eventLog)}">` +
            `<input type="hidden" name="token" value="${token}"><input type="hidden" name="delivery" value="whd_000001">` +
            '</form><script>document.getElementById("f").submit()</script>',
        );
      });
      try {
        const refused = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.goto(other.url);
        expect((await refused).status()).toBe(403);
      } finally {
        await other.close();
      }
      await page.goto(dev.eventLog);
      expect(await page.locator('tr#whd_000001 td').nth(3).textContent()).toBe('dropped');
      expect(toldStatuses(shop)).toEqual([]);
    } finally {
      await page.close();
      expect(await dev.stop()).toBe(0);
      await shop.server.close();
    }
  });
});
