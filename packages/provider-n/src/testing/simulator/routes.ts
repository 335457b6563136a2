/**
 * The Provider N simulator's API routes (docs/providers/provider-n.md#envelope, docs/providers/provider-n.md#authentication, docs/providers/provider-n.md#calls): the login with
 * Basic credentials, then init-transaction, the v1 status query (by transaction or payment reference),
 * initiate-refund and the refund status read, each behind a Bearer token, each answering in the provider's
 * envelope with its published codes.
 */
import {
  jsonBody,
  jsonReply,
  type RouteRequest,
  type Routes,
  type SimulatorReply,
  type TokenIssuer,
} from '@pay/core/testing';
import { refundBody, statusReadBody } from './payloads.js';
import { minorAmount, type ProviderNLedger, REFUSALS, type Refusal } from './state.js';

/** The API paths, relative to the simulator's URL (the adapter's `baseUrl`). */
export const API_ROUTES = {
  login: '/v1/auth/login',
  init: '/v1/merchant/transactions/init-transaction',
  query: '/v1/merchant/transactions/query',
  refund: '/v1/refunds/initiate-refund',
  /** `GET /v1/refunds/{refundReference}`: the provider's published refund status read. */
  refundStatus: '/v1/refunds/:refundReference',
} as const;

/** The success envelope around a body. */
export function envelope(status: number, responseBody: unknown): SimulatorReply {
  return jsonReply(status, {
    requestSuccessful: true,
    responseMessage: 'success',
    responseCode: '0',
    responseBody,
  });
}

/** A refusal in the provider's envelope. */
export function refusal({ status, code, message }: Refusal): SimulatorReply {
  return jsonReply(status, { requestSuccessful: false, responseMessage: message, responseCode: code });
}

const invalid = (message: string) => refusal({ status: 400, code: '99', message });

/** What the routes need besides the books. */
export interface RouteContext {
  ledger: ProviderNLedger;
  tokens: TokenIssuer;
  credentials: { apiKey: string; secretKey: string; contractCode: string | undefined };
  /** The simulator's URL, known once it listens (checkout URLs are built on it). */
  baseUrl(): string;
}

/** Adds the API routes to `routes`. */
export function addApiRoutes(routes: Routes, context: RouteContext): void {
  const { ledger, tokens, credentials } = context;
  /** Every API call but the login needs a live Bearer token; a JSON object body where the call takes one. */
  const authorised =
    (handle: (request: RouteRequest, body: Record<string, unknown>) => SimulatorReply, takesBody = false) =>
    (request: RouteRequest): SimulatorReply => {
      if (!tokens.acceptsBearer(request.headers.authorization))
        return refusal({ status: 401, code: '99', message: 'Invalid or expired access token' });
      const body = jsonBody(request);
      if (!takesBody) return handle(request, {});
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return invalid('A JSON object body is required');
      return handle(request, body as Record<string, unknown>);
    };

  routes.post(API_ROUTES.login, (request) => {
    const basic = `${credentials.apiKey}:${credentials.secretKey}`;
    const expected = `Basic ${Buffer.from(basic).toString('base64')}`;
    if (request.headers.authorization !== expected)
      return refusal({ status: 401, code: '99', message: 'Invalid API key or secret key' });
    const { token, expiresIn } = tokens.issue();
    return envelope(200, { accessToken: token, expiresIn });
  });

  routes.post(
    API_ROUTES.init,
    authorised((_request, body) => initTransaction(context, body), true),
  );

  routes.get(
    API_ROUTES.query,
    authorised((request) => {
      // The published v1 read takes either `transactionReference` or the merchant's `paymentReference`.
      const transaction = ledger.find(request.query);
      return transaction ? envelope(200, statusReadBody(transaction)) : refusal(REFUSALS.transactionNotFound);
    }),
  );

  routes.post(
    API_ROUTES.refund,
    authorised((_request, body) => {
      if (typeof body.refundReference !== 'string' || body.refundReference === '')
        return invalid('refundReference is required');
      const refund = ledger.refund(body, body.refundAmount);
      return 'code' in refund ? refusal(refund) : envelope(200, refundBody(refund));
    }, true),
  );

  routes.get(
    API_ROUTES.refundStatus,
    authorised((request) => {
      const refund = ledger.refunds.get(request.params.refundReference ?? '');
      return refund ? envelope(200, refundBody(refund)) : refusal(REFUSALS.refundNotFound);
    }),
  );
}

/** `POST init-transaction`: the request's checks in the provider's order, then a PENDING transaction. */
function initTransaction(context: RouteContext, body: Record<string, unknown>): SimulatorReply {
  const { ledger, credentials } = context;
  const currency = typeof body.currencyCode === 'string' ? body.currencyCode : '';
  if (!/^[A-Z]{3}$/.test(currency)) return invalid('currencyCode must be an ISO 4217 code');
  const amountMinor = minorAmount(body.amount, currency);
  if (amountMinor === undefined) return invalid('amount must be a positive amount in major units');
  if (typeof body.customerEmail !== 'string' || !body.customerEmail.includes('@'))
    return invalid('customerEmail is required');
  if (typeof body.paymentReference !== 'string' || body.paymentReference === '')
    return invalid('paymentReference is required');
  if (credentials.contractCode !== undefined && body.contractCode !== credentials.contractCode)
    return invalid('Invalid contract code');
  // A reused reference is refused as the provider documents it; it never replays the earlier result.
  if (ledger.paymentReferences.has(body.paymentReference)) return refusal(REFUSALS.duplicatePaymentReference);
  const transactionReference = ledger.nextTransactionReference();
  const checkoutUrl = `${context.baseUrl()}/checkout/${encodeURIComponent(transactionReference)}`;
  const methods = Array.isArray(body.paymentMethods)
    ? body.paymentMethods.map(String)
    : ['CARD', 'ACCOUNT_TRANSFER'];
  ledger.open({
    transactionReference,
    paymentReference: body.paymentReference,
    amountMinor,
    currency,
    contractCode: typeof body.contractCode === 'string' ? body.contractCode : undefined,
    customerEmail: body.customerEmail,
    customerName: typeof body.customerName === 'string' ? body.customerName : undefined,
    paymentDescription: typeof body.paymentDescription === 'string' ? body.paymentDescription : '',
    redirectUrl: typeof body.redirectUrl === 'string' ? body.redirectUrl : undefined,
    paymentMethods: methods,
    metaData: (body.metaData as Record<string, unknown> | undefined) ?? {},
    paymentStatus: 'PENDING',
    amountPaidMinor: 0,
    refundableMinor: 0,
    paidOn: undefined,
    checkoutUrl,
  });
  return envelope(200, {
    transactionReference,
    paymentReference: body.paymentReference,
    merchantName: 'Simulated Merchant',
    apiKey: credentials.apiKey,
    enabledPaymentMethod: methods,
    checkoutUrl,
  });
}
