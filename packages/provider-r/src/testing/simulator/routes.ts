/**
 * The wire routes of the Provider R simulator (docs/providers/provider-r.md#calls): HTTP Basic on every call, JSON bodies on
 * the v2.0 calls, the form-encoded v1.0 status call answered form-encoded (or JSON), the published answers to an
 * unknown payment and to a caller outside the merchant's IP whitelist.
 */
import type { RecordedRequest, RouteRequest, Routes, SimulatorReply } from '@pay/core/testing';
import type { SimulatedTransaction } from './state.js';
import { json, type ProviderRLedger, providerError } from './state.js';

/** What the routes need besides the books. */
export interface RouteSettings {
  credentials: { merchant: string; secret: string };
  /** How the status call answers: `form` (the provider's default) or `json`. */
  statusFormat: 'form' | 'json';
  /** True while every call is answered as from outside the merchant's IP whitelist. */
  locationRefused(): boolean;
}

/** The fields of the status reply (and of a push) for a transaction, every value as text, secret echoed. */
export function statusFields(
  transaction: SimulatedTransaction,
  credentials: RouteSettings['credentials'],
): Record<string, string> {
  return {
    code: '0',
    message: 'OK',
    merchant: credentials.merchant,
    test: String(transaction.test),
    price: String(transaction.price),
    curr: transaction.curr,
    label: transaction.label,
    ...(transaction.refId === undefined ? {} : { refId: transaction.refId }),
    ...(transaction.payerId === undefined ? {} : { payerId: transaction.payerId }),
    method: transaction.method === 'ALL' ? 'CARD' : transaction.method,
    email: transaction.email,
    transId: transaction.transId,
    // The real status reply echoes the secret; the adapter must drop it.
    secret: credentials.secret,
    status: transaction.status,
    fee: 'unknown',
  };
}

/** Adds the provider's API routes to `routes`; `refusal` answers the calls that never reach a route. */
export function addWireRoutes(routes: Routes, ledger: ProviderRLedger, settings: RouteSettings) {
  const { credentials } = settings;
  const basic = `Basic ${Buffer.from(`${credentials.merchant}:${credentials.secret}`).toString('base64')}`;

  /** The status call's answer, form-encoded as the provider sends it (charset included), or JSON. */
  const statusAnswer = (fields: Record<string, string>): SimulatorReply =>
    settings.statusFormat === 'json'
      ? json(200, fields)
      : {
          status: 200,
          body: new URLSearchParams(fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        };

  /** The answer to a call refused before any route: IP whitelist, then Basic auth; `undefined` lets it through. */
  function refusal(request: RecordedRequest): SimulatorReply | undefined {
    if (settings.locationRefused()) {
      const fields = { code: '1400', message: 'Access from unauthorized location [127.0.0.1]!' };
      return request.path === '/v1.0/status' ? statusAnswer(fields) : json(200, { ...fields, code: 1400 });
    }
    if (request.headers.authorization !== basic) return providerError(401, 1400, 'Unauthorized access');
    return undefined;
  }

  /** A v2.0 route: authorised, with a JSON body (an empty body is `{}`). */
  const api =
    (handle: (body: Record<string, unknown>, request: RouteRequest) => SimulatorReply) =>
    (request: RouteRequest): SimulatorReply => {
      const refused = refusal(request);
      if (refused) return refused;
      let body: Record<string, unknown> = {};
      if (request.body !== '') {
        try {
          body = JSON.parse(request.body) as Record<string, unknown>;
        } catch {
          return providerError(400, 1400, 'Malformed JSON body');
        }
        if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
          return providerError(400, 1400, 'Expected a JSON body');
      }
      return handle(body, request);
    };

  /** The transaction of a `{transId}.json` path segment; `undefined` when the segment lacks `.json`. */
  const transIdOf = (request: RouteRequest) =>
    request.params.file?.endsWith('.json') ? request.params.file.slice(0, -'.json'.length) : undefined;
  const unknownCall = (request: RecordedRequest) =>
    providerError(404, 1400, `No such call: ${request.method} ${request.path}`);

  routes.post('/v1.0/status', (request) => {
    const refused = refusal(request);
    if (refused) return refused;
    const form = new URLSearchParams(request.body);
    if (form.get('merchant') !== credentials.merchant || form.get('secret') !== credentials.secret)
      return statusAnswer({ code: '1400', message: 'Unauthorized access' });
    const transId = form.get('transId') ?? '';
    const transaction = ledger.transactions.get(transId);
    if (transaction) return statusAnswer(statusFields(transaction, credentials));
    // The published answer to an unknown payment: `error` (not `code`) 1400, and the request echoed, secret
    // included (test/fixtures/status-not-found-1400.json).
    return statusAnswer({
      error: '1400',
      message: `Payment not found (status), params: array (\n  'merchant' => '${credentials.merchant}',\n  'secret' => '${credentials.secret}',\n  'transId' => '${transId}',\n)\n`,
    });
  });
  routes.post(
    '/v2.0/paymentRedirect/merchant/:merchant',
    api((body, request) =>
      request.params.merchant === credentials.merchant
        ? ledger.create('checkout', body)
        : providerError(400, 1301, 'Unknown merchant'),
    ),
  );
  routes.post(
    '/v2.0/payment',
    api((body) => ledger.create('payment', body)),
  );
  routes.post(
    '/v2.0/refund.json',
    api((body) => ledger.refund(body)),
  );
  routes.on(
    'PUT',
    '/v2.0/preauth/transId/:file',
    api((body, request) => {
      const transId = transIdOf(request);
      return transId === undefined ? unknownCall(request) : ledger.capture(transId, body);
    }),
  );
  routes.on(
    'DELETE',
    '/v2.0/preauth/transId/:file',
    api((_body, request) => {
      const transId = transIdOf(request);
      return transId === undefined ? unknownCall(request) : ledger.cancelCall(transId, 'AUTHORIZED');
    }),
  );
  routes.on(
    'DELETE',
    '/v2.0/payment/transId/:file',
    api((_body, request) => {
      const transId = transIdOf(request);
      return transId === undefined ? unknownCall(request) : ledger.cancelCall(transId, 'PENDING');
    }),
  );

  /** Any other call: refused as the provider would (whitelist, auth), else "no such call". */
  return (request: RecordedRequest): SimulatorReply => refusal(request) ?? unknownCall(request);
}
