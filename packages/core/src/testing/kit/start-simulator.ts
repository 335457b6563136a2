/**
 * The simulator builder (docs/architecture.md#simulator-builder): one call that wires the kit the way every
 * provider simulator needs it, so a simulator is its state, its routes and its webhooks, nothing else.
 *
 * `startSimulator(options, definition)` makes the request log, the fault injector, the route table, the clock and
 * token issuer and the signed webhook forwarder; adds the trigger control route (`pay trigger`); lets the
 * definition add the provider's routes and state; hands the route table and forwarder to `options.attach`
 * (`pay dev`'s event log and dropped webhooks); serves it all on 127.0.0.1; and returns the whole
 * `PaymentSimulator` (payer actions that resolve once the webhooks they caused are delivered, time, tokens,
 * `close`), with the provider's own members beside it.
 */
import { addTriggerRoute } from './control.js';
import { FaultInjector, type SimulatorReply } from './faults.js';
import type { PayerAction } from './pages.js';
import { type RecordedRequest, RequestLog } from './requests.js';
import { Routes, simulatorListener } from './routes.js';
import { startLoopbackServer } from './server.js';
import type { PaymentSimulator, SimulatorStartOptions } from './simulator.js';
import { SimulatorClock, TokenIssuer, type TokenIssuerOptions } from './tokens.js';
import { type WebhookDelivery, WebhookForwarder, type WebhookForwarderOptions } from './webhooks.js';

/** The kit parts {@link startSimulator} made, as a definition's `setup` receives them. */
export interface SimulatorKit {
  /** The route table: add the provider's routes here. */
  readonly routes: Routes;
  /** The signed webhook forwarder: queue each status change's webhook with `enqueue`. */
  readonly forwarder: WebhookForwarder;
  /** Every request received, in order. */
  readonly requests: RequestLog;
  /** The fault injector every provider route runs behind. */
  readonly faults: FaultInjector;
  /** The simulator's clock (`advanceTime` moves it). */
  readonly clock: SimulatorClock;
  /** The access tokens it issues on {@link clock} (`expireTokens` revokes them). */
  readonly tokens: TokenIssuer;
  /** `http://127.0.0.1:<port>`, once the simulator serves (read it from routes and later calls, not in `setup`). */
  readonly url: string;
}

/** What a definition's `setup` gives back: how the provider answers, acts and signs, on the kit's parts. */
export interface SimulatorBehaviour<Config, Books, TriggerOptions, Own> {
  /** The reply to a call no route takes (default: 404 JSON `{ error }`), in the provider's refusal shape. */
  notFound?: (request: RecordedRequest) => SimulatorReply;
  /** `PaymentSimulator.adapterConfig`: `baseUrl` ({@link SimulatorKit.url}), credentials, webhook secret. */
  adapterConfig(overrides?: Partial<Config>): Config;
  /** `PaymentSimulator.books`: a snapshot of the provider's state. */
  books(): Books;
  /**
   * What a person does on the hosted page, in the books (queueing the webhooks it causes): the payer's
   * `pay`/`fail`/`cancel` call it and resolve once those webhooks are delivered.
   */
  act(id: string, action: PayerAction): void | Promise<void>;
  /** `PaymentSimulator.trigger`: sends one signed event to `options.to` or the forwarding URL. */
  trigger(event: string, options: TriggerOptions): Promise<{ status: number; body: string }>;
  /**
   * The trigger options of a control request (`pay trigger`'s JSON, `to` included), checked; default: the JSON
   * as given.
   */
  triggerOptions?: (given: Record<string, unknown>) => TriggerOptions;
  /**
   * The provider's own members (controls, counters), made once the simulator serves; their getters stay
   * getters, and a member named as one of `PaymentSimulator`'s replaces it.
   */
  members?: () => Own;
}

/** What {@link startSimulator} builds a simulator from. */
export interface SimulatorDefinition<Config, Books, TriggerOptions, Own, Name extends string = string> {
  /** The simulator's name (`provider-x`): `PaymentSimulator.provider`, answered by its trigger control route. */
  provider: Name;
  /** The header carrying the client's request id (`x-request-id`), which the request log records. */
  requestIdHeader: string;
  /** The headers carrying the provider's signature of a webhook body (`{}` for a provider that signs nothing). */
  sign: WebhookForwarderOptions['sign'];
  /** How webhooks are redelivered (the forwarder's defaults otherwise). */
  delivery?: Pick<WebhookForwarderOptions, 'redeliveries' | 'backoffMs' | 'timeoutMs'>;
  /** The clock, when the provider's has more to it (default a plain {@link SimulatorClock}). */
  clock?: SimulatorClock;
  /**
   * The token issuer: its options (on the kit's clock), or one the provider built itself (default: tokens that
   * live an hour).
   */
  tokens?: Omit<TokenIssuerOptions, 'clock'> | TokenIssuer;
  /** Builds the provider's state and routes on the kit's parts, before the simulator serves. */
  setup(kit: SimulatorKit): SimulatorBehaviour<Config, Books, TriggerOptions, Own>;
}

/** The simulator {@link startSimulator} returns: the kit's interface, typed trigger options, the provider's own members. */
export type BuiltSimulator<Config, Books, TriggerOptions, Own, Name extends string = string> = Omit<
  PaymentSimulator<Config, Books>,
  keyof Own | 'trigger' | 'provider' | 'deliveries'
> & {
  readonly provider: Name;
  /** The forwarder's delivery log. */
  readonly deliveries: readonly WebhookDelivery[];
  trigger(event: string, options?: TriggerOptions): Promise<{ status: number; body: string }>;
} & Own;

/**
 * Starts a provider simulator on 127.0.0.1 (on `options.port`, else a free port) from its `definition`, wired
 * from the kit: request log, faults, routes with the trigger control route, clock and tokens, signed webhook
 * forwarding, `options.attach` for `pay dev` (docs/architecture.md#simulator-builder).
 */
export async function startSimulator<
  Config,
  Books,
  TriggerOptions extends object = Record<string, unknown>,
  Own extends object = Record<never, never>,
  Name extends string = string,
>(
  options: SimulatorStartOptions,
  definition: SimulatorDefinition<Config, Books, TriggerOptions, Own, Name>,
): Promise<BuiltSimulator<Config, Books, TriggerOptions, Own, Name>> {
  const faults = new FaultInjector();
  const requests = new RequestLog({
    requestIdHeader: definition.requestIdHeader,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const forwarder = new WebhookForwarder({
    sign: definition.sign,
    ...definition.delivery,
    ...(options.onDelivery ? { onDelivery: options.onDelivery } : {}),
  });
  const clock = definition.clock ?? new SimulatorClock();
  const tokens =
    definition.tokens instanceof TokenIssuer
      ? definition.tokens
      : new TokenIssuer({ lifetimeSeconds: 3600, ...definition.tokens, clock });
  const routes = new Routes();
  let url: string | undefined;
  const kit: SimulatorKit = {
    routes,
    forwarder,
    requests,
    faults,
    clock,
    tokens,
    get url() {
      if (url === undefined) throw new Error(`The ${definition.provider} simulator is not serving yet.`);
      return url;
    },
  };
  // `pay trigger` asks the running simulator (`pay dev`): the event is signed with THIS simulator's keys, about
  // an object in THESE books, so the app's signature check and its status read agree with it.
  addTriggerRoute(routes, {
    provider: definition.provider,
    trigger: (event, given) => simulator.trigger(event, triggerOptions(given)),
  });
  const behaviour = definition.setup(kit);
  const triggerOptions = behaviour.triggerOptions ?? ((given) => given as TriggerOptions);
  // `pay dev` adds its event log and drops webhooks here, once every route is in (docs/architecture.md#pay-dev).
  options.attach?.({ routes, forwarder, requests });
  const server = await startLoopbackServer(
    simulatorListener({
      routes,
      requests,
      faults,
      ...(behaviour.notFound ? { notFound: behaviour.notFound } : {}),
    }),
    options.port === undefined ? {} : { port: options.port },
  );
  url = server.url;

  /** A payer action from a test: the books move, and it resolves once the webhooks it caused are delivered. */
  const payer = (action: PayerAction) => async (id: string) => {
    await behaviour.act(id, action);
    await forwarder.idle();
  };
  const base: PaymentSimulator<Config, Books> = {
    provider: definition.provider,
    url: server.url,
    adapterConfig: (overrides) => behaviour.adapterConfig(overrides),
    books: () => behaviour.books(),
    get requests() {
      return [...requests.entries];
    },
    faults,
    get deliveries() {
      return forwarder.deliveries;
    },
    payer: { pay: payer('pay'), fail: payer('fail'), cancel: payer('cancel') },
    forwardWebhooks: (to) => forwarder.forwardTo(to),
    trigger: (event, given = {}) => behaviour.trigger(event, given as TriggerOptions),
    advanceTime: (ms) => clock.advanceTime(ms),
    expireTokens: () => tokens.expireTokens(),
    async close() {
      await forwarder.close();
      await server.close();
    },
  };
  const own = behaviour.members?.();
  // Descriptors, not a spread: a member that is a getter (a live count) stays one.
  const simulator = (own === undefined
    ? base
    : Object.defineProperties(base, Object.getOwnPropertyDescriptors(own))) as unknown as BuiltSimulator<
    Config,
    Books,
    TriggerOptions,
    Own,
    Name
  >;
  return simulator;
}
