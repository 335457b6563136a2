/**
 * The Provider Xyz API as the simulator answers it (TODO: one route per call the adapter makes, answering as the
 * provider does: its envelope, its refusals, its duplicate-reference rule). The books are shared with
 * `index.ts`, which moves payments for the payer and forwards the webhooks.
 */
import type { Routes } from '@pay/core/testing';
import type { ProviderXyzBooks } from './state.js';

/** What the routes need of the running simulator. */
export interface RouteContext {
  books: ProviderXyzBooks;
  /** The simulator's URL, for the payment page links it hands out (`${url()}/pay/${id}`, PAYMENT_PAGE_PATH). */
  url(): string;
  /** A fresh id for a payment or refund. */
  nextId(prefix: string): string;
}

/** Adds the provider's API to `routes`. */
export function addApiRoutes(_routes: Routes, _context: RouteContext): void {
  // TODO: e.g. routes.post('/checkouts', (request) => …), routes.get('/payments/:id', …), routes.post('/refunds', …)
}
