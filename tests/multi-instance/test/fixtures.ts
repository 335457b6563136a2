/**
 * Inputs for each provider that the instances send (complete, valid requests per the wire contracts (docs/providers/)), and the
 * store configurations of the shared servers the global setup started.
 */
import { sampleTransferMetadata } from '@pay/provider-t/testing';
import { inject } from 'vitest';
import { type StoreConfig, uniqueName } from './instances.js';

/** A Provider T transfer's `provider_metadata`: sender, receiver and compliance data the update requires. */
export const transferMetadata = sampleTransferMetadata;

/** A Provider T `payments.create` input for `orderId` (the order id comes back in the transfer's details). */
export function transferInput(orderId: string, amount = 100) {
  return { amount, currency: 'USD', metadata: { orderId }, provider_metadata: transferMetadata };
}

/** A Provider T `checkouts.create` input (amount and currency in `provider_metadata`, as the adapter takes them). */
export function transferCheckoutInput(orderId: string, amount = 250.5) {
  return {
    item_id: 'remittance',
    metadata: { orderId },
    provider_metadata: { ...transferMetadata, amount, currency: 'USD' },
  };
}

/** A Provider N `checkouts.create` input. */
export function providerNCheckoutInput(orderId: string, amount = 5000) {
  return {
    customer: { email: 'ada@example.com' },
    item_id: 'blue-mug',
    quantity: 1,
    success_url: 'https://shop.example/thanks',
    metadata: { orderId },
    provider_metadata: { amount, currency: 'NGN', customerName: 'Ada Obi' },
  };
}

/** A Provider R `payments.create` input (`amount` in the currency's standard unit: 100 = 100.00 CZK). */
export function providerRPaymentInput(orderId: string, amount = 100) {
  return {
    customer: { id: `customer-${orderId}` },
    amount,
    metadata: { orderId },
    provider_metadata: { email: 'payer@example.com' },
  };
}

/** A Provider R checkout input for `createCheckoutRedirect` (which takes no idempotency key). */
export function providerRCheckoutInput(orderId: string, amount = 100) {
  return {
    customer: { email: 'payer@example.com' },
    item_id: orderId,
    session_type: 'one_time',
    quantity: 1,
    amount,
    currency: 'CZK',
    success_url: 'https://shop.example/paid',
    cancel_url: 'https://shop.example/cancelled',
  };
}

/** A store configuration on the run's shared server, with tables / keys of its own. */
export function sharedStore(kind: 'postgres' | 'redis', label: string): StoreConfig {
  return kind === 'postgres'
    ? { kind, url: inject('postgresUrl'), tablePrefix: uniqueName(label).toLowerCase().slice(0, 36) }
    : { kind, url: inject('redisUrl'), keyPrefix: `pay:${uniqueName(label)}` };
}
