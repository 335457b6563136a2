/**
 * The parent side of test/child/instance.mjs: starts application instances as separate Node processes (each
 * importing the built packages, each with its own `createPay`), sends them operations over IPC, and kills them.
 * Every wait here has a timeout; every instance a test starts is stopped after it (`stopAllInstances`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child/instance.mjs', import.meta.url));

/** Where an instance keeps its shared state. */
export type StoreConfig =
  | {
      kind: 'postgres';
      url: string;
      /** Table prefix of this test's tables (each test uses its own, so tests never see each other's rows). */
      tablePrefix: string;
      migrate?: boolean;
    }
  | {
      kind: 'redis';
      url: string;
      keyPrefix: string;
      commandTimeoutMs?: number;
      disableOfflineQueue?: boolean;
    };

/** What one instance is configured with (JSON: it crosses a process boundary). */
export interface InstanceConfig {
  provider: 't' | 'n' | 'r';
  /** The adapter's configuration (credentials and `baseUrl` of the simulator, `retry`, …). */
  adapter: object;
  store: StoreConfig;
  /** `createPay`'s `idempotencyLeaseSeconds` (short, so a crashed instance's key is free again soon). */
  idempotencyLeaseSeconds?: number;
  /** Serve the webhook handler with the store's deduplication, on a loopback port. */
  webhooks?: { webhookSecret: string | null; leaseSeconds?: number };
  /** Share provider logins through the store's token cache. */
  sharedTokens?: boolean;
  /**
   * Run the reconciler (needs `webhooks`): createPay registers what it creates, callbacks and creates update the
   * application's view (`<viewTable>_records`, `<viewTable>_callbacks` in PostgreSQL at `viewUrl`), and every
   * read is scheduled at most `readEveryMs` ahead (see test/child/instance.mjs).
   */
  reconcile?: {
    intervalMs: number;
    leaseSeconds: number;
    readsPerMinute: number;
    readEveryMs: number;
    /** The reconciler's deadline on a transition's callbacks (its default, 30 s, unless given). */
    callbackTimeoutMs?: number;
    /**
     * The reconciler's clock runs `speed` times faster than real time from `since` (epoch ms); real time without.
     * Only for a scenario in which nothing but stale keys exists (see test/child/instance.mjs).
     */
    clock?: { since: number; speed: number };
    viewUrl: string;
    viewTable: string;
  };
}

/** An error as the instance reported it. */
export interface ReportedError {
  name: string;
  message: string;
  code?: string;
  retryable?: boolean;
  outcome?: string;
  status?: number;
  providerCode?: string;
  reason?: string;
  context?: Record<string, unknown>;
}

/** A record an operation returned (a Payment, Checkout or Refund), as JSON. */
export interface ReturnedRecord {
  id: string;
  status: string;
  amount?: number;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The outcome of one operation run by an instance. */
export type CallOutcome = { ok: true; value: ReturnedRecord } | { ok: false; error: ReportedError };

/** A message from an instance (see test/child/instance.mjs). */
type InstanceMessage =
  | { type: 'ready'; pid: number; webhookUrl: string | null }
  | { type: 'fatal'; error: ReportedError }
  | { type: 'held'; method: string; path: string }
  | { type: 'reconcileRun'; paused: boolean; transitions: number; unresolved: number; asked: string[] }
  | { type: 'log'; level: 'error'; message: string; details?: Record<string, unknown> }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: ReportedError };

/** An event a webhook callback of the instance received. */
export interface ProcessedEvent {
  eventId: string;
  type: string;
  /** The id of the event's record (payment, refund, …). */
  dataId: string | undefined;
  outcome: 'ok' | 'failed';
}

/** A running instance. */
export interface Instance {
  readonly name: string;
  readonly pid: number;
  /** The webhook endpoint, when configured with `webhooks`. */
  readonly webhookUrl: string;
  /** Runs `pay.<operation>(...args)` in the instance, e.g. `call('payments.create', input, { idempotencyKey })`. */
  call(operation: string, ...args: unknown[]): Promise<CallOutcome>;
  /**
   * From now on, upstream requests matching a rule are not sent until `release()` (the call waits); resolves once
   * the rule is set. `held()` resolves when the first one was held.
   */
  hold(rules: { method: string; path: string }[]): Promise<void>;
  /** Sends the held requests now and holds no more. */
  release(): Promise<void>;
  /** Resolves with the first request held, or rejects after `timeoutMs`. */
  held(timeoutMs?: number): Promise<{ method: string; path: string }>;
  /** The next `count` webhook callbacks throw. */
  failCallbacks(count: number): Promise<void>;
  /** The next `count` callbacks never settle (before they touch the view). */
  hangCallbacks(count: number): Promise<void>;
  /** Every webhook event the instance's callbacks received, in order. */
  processed(): Promise<ProcessedEvent[]>;
  /** What its reconciler's `unresolved()` lists now. */
  unresolved(): Promise<Record<string, unknown>[]>;
  /** Kills the process at once (SIGKILL: no handler runs, nothing is cleaned up) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Closes its store client and server and waits for the process to exit. */
  close(): Promise<void>;
}

const live = new Set<ChildProcess>();

/**
 * Every reconciler run of every instance of this test file, in the order each instance reported them: its
 * `pay:reconcile` message, and the stale idempotency keys the run asked `pay.resolve` about (`asked`).
 */
export const reconcileRuns: {
  instance: string;
  paused: boolean;
  transitions: number;
  unresolved: number;
  asked: string[];
}[] = [];

/** Every `error` line core logged in an instance of this test file (reconciler instances only). */
export const errorLogs: { instance: string; message: string; details: Record<string, unknown> }[] = [];
// A test process that ends leaves no instance behind (instances also exit when their IPC channel closes).
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Rejects after `ms` with a message naming what was awaited. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` every 20 ms until it returns true; rejects after `timeoutMs`. For conditions only the parent can
 * observe (the simulator's request log or books); never a fixed sleep.
 */
export async function waitUntil(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts one instance and resolves when it is ready (store connected and migrated, webhook server listening). */
export async function startInstance(name: string, config: InstanceConfig): Promise<Instance> {
  const child = fork(CHILD, [], {
    env: { ...process.env, PAY_INSTANCE_CONFIG: JSON.stringify({ ...config, name }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // The instance imports the built packages as an application does: no `@pay/source` condition, no loaders.
    execArgv: [],
  });
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const pending = new Map<number, (outcome: CallOutcome) => void>();
  let nextId = 1;
  let firstHeld: ((request: { method: string; path: string }) => void) | undefined;
  const heldRequest = new Promise<{ method: string; path: string }>((resolve) => {
    firstHeld = resolve;
  });
  const ready = new Promise<{ pid: number; webhookUrl: string | null }>((resolve, reject) => {
    child.on('message', (message: InstanceMessage) => {
      if (message.type === 'ready') resolve(message);
      else if (message.type === 'fatal')
        reject(new Error(`instance ${name} failed to start: ${JSON.stringify(message.error)}`));
      else if (message.type === 'held') firstHeld?.({ method: message.method, path: message.path });
      else if (message.type === 'reconcileRun') {
        const { paused, transitions, unresolved, asked } = message;
        reconcileRuns.push({ instance: name, paused, transitions, unresolved, asked });
      } else if (message.type === 'log')
        errorLogs.push({ instance: name, message: message.message, details: message.details ?? {} });
      else if (message.type === 'reply') {
        pending.get(message.id)?.(
          message.ok
            ? { ok: true, value: message.value as ReturnedRecord }
            : { ok: false, error: message.error },
        );
        pending.delete(message.id);
      }
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`instance ${name} exited before it was ready (code ${code}, signal ${signal})`)),
    );
  });
  const started = await within(30_000, `instance ${name} to start`, ready);
  // An instance that dies (killed by a test) leaves its pending calls unanswered: they fail, never hang.
  void exited.then(({ code, signal }) => {
    for (const resolve of pending.values())
      resolve({
        ok: false,
        error: { name: 'InstanceExited', message: `exited (code ${code}, signal ${signal})` },
      });
    pending.clear();
  });
  const send = (command: Record<string, unknown>, timeoutMs = 45_000): Promise<CallOutcome> => {
    const id = nextId++;
    const answer = new Promise<CallOutcome>((resolve) => pending.set(id, resolve));
    if (!child.connected)
      return Promise.resolve({ ok: false, error: { name: 'InstanceExited', message: 'gone' } });
    child.send({ id, ...command });
    return within(timeoutMs, `instance ${name} to answer ${JSON.stringify(command).slice(0, 120)}`, answer);
  };
  const expectOk = async (command: Record<string, unknown>) => {
    const outcome = await send(command);
    if (!outcome.ok) throw new Error(`instance ${name}: ${JSON.stringify(outcome.error)}`);
    return outcome.value;
  };
  return {
    name,
    pid: started.pid,
    webhookUrl: started.webhookUrl ?? '',
    call: (operation, ...args) => send({ command: 'call', operation, args }),
    hold: async (rules) => {
      await expectOk({ command: 'hold', rules });
    },
    release: async () => {
      await expectOk({ command: 'release' });
    },
    held: (timeoutMs = 15_000) => within(timeoutMs, `instance ${name} to hold a request`, heldRequest),
    failCallbacks: async (count) => {
      await expectOk({ command: 'failCallbacks', count });
    },
    hangCallbacks: async (count) => {
      await expectOk({ command: 'hangCallbacks', count });
    },
    processed: async () => (await expectOk({ command: 'processed' })) as unknown as ProcessedEvent[],
    unresolved: async () =>
      (await expectOk({ command: 'unresolved' })) as unknown as Record<string, unknown>[],
    kill: async () => {
      child.kill('SIGKILL');
      await within(10_000, `instance ${name} to die`, exited);
    },
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await send({ command: 'close' }, 10_000).catch(() => undefined);
      await within(10_000, `instance ${name} to exit`, exited).catch(() => {
        child.kill('SIGKILL');
      });
    },
  };
}

/** Starts `count` instances with the same configuration, at once. */
export async function startInstances(
  count: number,
  config: InstanceConfig,
  prefix = 'instance',
): Promise<Instance[]> {
  return await Promise.all(
    Array.from({ length: count }, (_, index) => startInstance(`${prefix}-${index + 1}`, config)),
  );
}

/** Kills every instance still running (afterEach): a failed test never leaves a process behind. */
export async function stopAllInstances(): Promise<void> {
  const children = [...live];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** A name unique to this test (table prefix, key prefix): tests never share rows or keys. */
export function uniqueName(label: string): string {
  return `${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}_`;
}

/**
 * Calls until the answer is not "in progress" (an earlier attempt, e.g. of a killed instance, still holds the
 * key's lease), as a caller that retries a retryable error does. Bounded: a lease runs out after
 * `leaseSeconds`, so more than that plus a margin is a failure.
 */
export async function retryWhileInProgress(
  instance: Instance,
  operation: string,
  args: unknown[],
  key: string,
  leaseSeconds: number,
): Promise<{ outcome: CallOutcome; attempts: number }> {
  const deadline = Date.now() + (leaseSeconds + 15) * 1000;
  for (let attempts = 1; ; attempts += 1) {
    const outcome = await instance.call(operation, ...args, { idempotencyKey: key });
    if (outcome.ok || outcome.error.code !== 'idempotency_in_progress') return { outcome, attempts };
    if (Date.now() > deadline)
      throw new Error(`key ${key} still in progress after its lease should have run out`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
