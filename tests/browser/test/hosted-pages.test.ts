import { mkdir, writeFile } from 'node:fs/promises';
import type { Payment } from '@pay/core';
import type { PayerAction } from '@pay/core/testing';
import { describe, expect, it } from 'vitest';
import { chromiumForTests, chromiumPath, pngSize, skipReason } from './browser.js';
import { SCENARIOS } from './scenarios.js';
import { startShop } from './shop.js';

const VIEWPORT = { width: 800, height: 600 };
const BUTTONS: Readonly<Record<PayerAction, string>> = { pay: 'Pay', fail: 'Fail', cancel: 'Cancel' };

if (skipReason) console.warn(`tests/browser skipped: ${skipReason}`);

describe.skipIf(!chromiumPath)('hosted pages in headless Chromium', () => {
  const browser = chromiumForTests();

  describe.each(SCENARIOS)('$provider', (scenario) => {
    it.each(['pay', 'fail', 'cancel'] as const)(
      '%s: the page shows the payment and its three buttons, the browser lands where the provider sends it, and the signed webhook (where the provider sends one) reached the app',
      async (action) => {
        const shop = await startShop();
        const checkout = await scenario.open(shop);
        const page = await browser().newPage({ viewport: VIEWPORT });
        try {
          await page.goto(checkout.pageUrl);
          expect(await page.title()).toContain(`${scenario.label} (simulator)`);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(scenario.heading);
          expect(await page.getByRole('button').allTextContents()).toEqual(['Pay', 'Fail', 'Cancel']);
          const tree = await page.locator('main').ariaSnapshot();
          for (const label of Object.values(BUTTONS)) expect(tree).toContain(`button "${label}"`);
          expect(await page.getByText('No real money moves.').isVisible()).toBe(true);

          const screenshot = await page.screenshot({ type: 'png' });
          expect(pngSize(screenshot)).toEqual(VIEWPORT);
          // A blank 800x600 PNG compresses to well under 1 KB; a rendered page with text and buttons does not.
          expect(screenshot.byteLength).toBeGreaterThan(5_000);
          // Kept for a person to look at (reports/ is a build output, never committed).
          await mkdir('reports/screenshots', { recursive: true });
          await writeFile(`reports/screenshots/${scenario.provider}-${action}.png`, screenshot);

          await page.getByRole('button', { name: BUTTONS[action], exact: true }).click();
          await page.waitForLoadState('load');
          expect(page.url()).toBe(checkout.landing[action]);

          const status = scenario.outcomes[action];
          const forPayment = shop.events.filter(
            (event) => event.type.startsWith('payment.') && (event.data as Payment).id === checkout.paymentId,
          );
          if (scenario.silent?.includes(action)) {
            expect(forPayment).toEqual([]);
          } else {
            expect(forPayment.length).toBeGreaterThan(0);
            expect((forPayment.at(-1)?.data as Payment | undefined)?.status).toBe(status);
          }
          expect((await checkout.retrieve())?.status).toBe(status);
          if (checkout.landing[action] === checkout.pageUrl) {
            // Back on the provider's page (Provider T's receipt): no action is offered any more.
            expect(await page.getByRole('button').count()).toBe(0);
          } else {
            expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(
              /^(Thank you|Your payment|Welcome back)/,
            );
          }
        } finally {
          await page.close();
          await checkout.close();
          await shop.server.close();
        }
      },
    );
  });
});
