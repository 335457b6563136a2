/**
 * `@pay/core/testing`: the simulator kit every provider simulator is built from (docs/architecture.md#testing):
 * loopback server with routing, request log, fault injection, token issuing with a clock, signed webhook
 * forwarding, hosted pages, the `PaymentSimulator` interface. Test-only: it uses `node:http`. It does not load any
 * test runner, so a simulator also runs in a plain script (`pnpm demo`, `pay dev`); the adapter contract suite is
 * `@pay/core/testing/contract`. Every name is listed here (docs/architecture.md#public-surface).
 */
export {
  addTriggerRoute,
  SIMULATOR_TRIGGER_PATH,
  SimulatorTriggerError,
  type SimulatorTriggerRequest,
  type SimulatorTriggerResult,
  type TriggerFunction,
  type TriggerRouteOptions,
  triggerOnSimulator,
} from './kit/control.js';
export type {
  DevStartOptions,
  KeptSigningKey,
  LedgerEntry,
  MoneyMeaning,
  SimulatedObject,
  SimulatorDescriptor,
  SimulatorOracle,
  WireMoney,
} from './kit/descriptor.js';
export { addEventLogPage, EVENT_LOG_PATH, type EventLogOptions } from './kit/event-log.js';
export { type Fault, FaultInjector, type FaultRule, type SimulatorReply } from './kit/faults.js';
export {
  addHostedPages,
  escapeHtml,
  type HostedPagesOptions,
  type HostedPageView,
  type PayerAction,
  renderHostedPage,
  renderNotice,
} from './kit/pages.js';
export {
  formBody,
  jsonBody,
  type RecordedRequest,
  RequestLog,
  type RequestLogOptions,
} from './kit/requests.js';
export {
  htmlReply,
  jsonReply,
  type RouteHandler,
  type RouteRequest,
  Routes,
  redirectReply,
  type SimulatorListenerOptions,
  simulatorListener,
  textReply,
} from './kit/routes.js';
export {
  isLoopbackAddress,
  type LoopbackServer,
  type LoopbackServerOptions,
  MAX_REQUEST_BODY_BYTES,
  RequestBodyTooLargeError,
  type RequestListener,
  readRequestBody,
  SIMULATOR_CONTROL_PREFIX,
  sendJson,
  startLoopbackServer,
} from './kit/server.js';
export type {
  PayerActions,
  PaymentSimulator,
  SimulatorParts,
  SimulatorStartOptions,
} from './kit/simulator.js';
export {
  type SimulatorDefinition,
  type SimulatorKit,
  startSimulator,
} from './kit/start-simulator.js';
export {
  createTestAdapter,
  type TestAdapterBooks,
  type TestAdapterCall,
  type TestAdapterKit,
  type TestAdapterOptions,
  type TestAdapterTypes,
} from './kit/test-adapter.js';
export {
  signTestWebhook,
  TEST_SIGNATURE_HEADER,
  type TestWebhookDelivery,
  type TestWebhookPayload,
} from './kit/test-adapter-webhooks.js';
export {
  type IssuedToken,
  SimulatorClock,
  TokenIssuer,
  type TokenIssuerOptions,
} from './kit/tokens.js';
export {
  type OutgoingWebhook,
  type WebhookAttempt,
  type WebhookDelivery,
  WebhookForwarder,
  type WebhookForwarderOptions,
  type WebhookReply,
} from './kit/webhooks.js';
