/** The simulator kit: what every provider simulator is built from (docs/architecture.md#testing). */
export {
  addTriggerRoute,
  SIMULATOR_TRIGGER_PATH,
  SimulatorTriggerError,
  type SimulatorTriggerRequest,
  type SimulatorTriggerResult,
  type TriggerFunction,
  type TriggerRouteOptions,
  triggerOnSimulator,
} from './control.js';
export type { DevStartOptions, KeptSigningKey, SimulatorDescriptor } from './descriptor.js';
export { type Fault, FaultInjector, type FaultRule, type SimulatorReply } from './faults.js';
export {
  addHostedPages,
  escapeHtml,
  type HostedPagesOptions,
  type HostedPageView,
  type PayerAction,
  renderHostedPage,
  renderNotice,
} from './pages.js';
export {
  formBody,
  jsonBody,
  type RecordedRequest,
  RequestLog,
  type RequestLogOptions,
} from './requests.js';
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
} from './routes.js';
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
} from './server.js';
export type { PayerActions, PaymentSimulator, SimulatorStartOptions } from './simulator.js';
export {
  createTestAdapter,
  type TestAdapterBooks,
  type TestAdapterCall,
  type TestAdapterKit,
  type TestAdapterOptions,
  type TestAdapterTypes,
} from './test-adapter.js';
export {
  signTestWebhook,
  TEST_SIGNATURE_HEADER,
  type TestWebhookDelivery,
  type TestWebhookPayload,
} from './test-adapter-webhooks.js';
export {
  type IssuedToken,
  SimulatorClock,
  TokenIssuer,
  type TokenIssuerOptions,
} from './tokens.js';
export {
  type OutgoingWebhook,
  type WebhookAttempt,
  type WebhookDelivery,
  WebhookForwarder,
  type WebhookForwarderOptions,
  type WebhookReply,
} from './webhooks.js';
