/**
 * Provider N's status tables (docs/providers/provider-n.md#payment-statuses): the wire schemas name the statuses
 * they carry from them, and the mapping reads them (docs/architecture.md#records).
 */
import type { PaymentStatus, RefundStatus, SubscriptionStatus } from '@pay/core/adapter';

/** `paymentStatus` → unified payment status (docs/providers/provider-n.md#payment-statuses). */
export const PAYMENT_STATUS = {
  PAID: 'succeeded',
  OVERPAID: 'succeeded',
  PARTIALLY_PAID: 'processing',
  PENDING: 'pending',
  ABANDONED: 'canceled',
  CANCELLED: 'canceled',
  REVERSED: 'canceled',
  FAILED: 'failed',
  EXPIRED: 'failed',
} as const satisfies Record<string, PaymentStatus>;

/** `refundStatus` → unified refund status (`PENDING` appears in the provider's refund documentation too). */
export const REFUND_STATUS = {
  IN_PROGRESS: 'pending',
  PENDING: 'pending',
  COMPLETED: 'succeeded',
  FAILED: 'failed',
} as const satisfies Record<string, RefundStatus>;

/** `mandateStatus` → unified subscription status (docs/providers/provider-n.md#events). */
export const MANDATE_STATUS = {
  PENDING: 'pending',
  ACTIVE: 'active',
  ACTIVATED: 'active',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  EXPIRED: 'expired',
} as const satisfies Record<string, SubscriptionStatus>;
