import { type ClaimedObject, type ReconciliationStore, ValidationError, type WatchedObject } from '@pay/core';
import { runScript, unexpectedReply } from './client.js';
import type { RedisStoreOperation } from './errors.js';
import { checkNumbers, milliseconds, type RedisStoreOptions, resolveOptions } from './options.js';
import {
  RECONCILE_BACKLOG,
  RECONCILE_CLAIM,
  RECONCILE_SETTLE,
  RECONCILE_SPEND,
  RECONCILE_WATCH,
} from './scripts.js';

/** How long Redis keeps an object's hash after its `expiresAt`, should no call drop it before (one day). */
const KEEP_AFTER_EXPIRY_MS = 86_400_000;
const KINDS: readonly WatchedObject['kind'][] = ['payment', 'checkout', 'refund'];

/**
 * The reconciler's {@link ReconciliationStore} on Redis, shared by every instance. Per provider, under the hash
 * tag `{<provider>}` (so each call stays in one Redis Cluster slot): sorted sets of the watched objects by
 * `dueAt` (`<keyPrefix>reconcile:{<provider>}:due`), of the leased ones by the end of their lease (`…:leases`)
 * and of all by `expiresAt` (`…:expiry`); a hash per object (`…:object:<kind>:<id>`); and a counter of the reads
 * granted per minute (`…:reads:<minute>`). Each call is one atomic script, so two concurrent claims never lease
 * one object. Times are the epoch milliseconds the reconciler passes; `watch` judges expiry by this process's
 * clock, as core's in-memory store does (docs/architecture.md#reconciliation).
 *
 * Every call fails with core's `StoreError` (`code: 'store_unavailable'`) when Redis does not answer.
 */
export function createRedisReconciliationStore(options: RedisStoreOptions): ReconciliationStore {
  const { client, keyPrefix, commandTimeoutMs } = resolveOptions(options);
  const keysOf = (provider: string) => {
    const base = `${keyPrefix}reconcile:{${provider}}:`;
    return {
      sets: [`${base}due`, `${base}leases`, `${base}expiry`],
      objects: `${base}object:`,
      reads: `${base}reads:`,
    };
  };
  const run = (
    operation: RedisStoreOperation,
    script: string,
    keys: string[],
    values: string[],
    secrets: string[] = [],
  ) => runScript(client, commandTimeoutMs, { operation, script, keys, arguments: values, secrets });
  return {
    async watch(object) {
      const member = memberOf(object.kind, object.id);
      checkNumbers(
        'reconciliation.watch',
        { reads: object.reads },
        { dueAt: object.dueAt, expiresAt: object.expiresAt },
      );
      const { sets, objects } = keysOf(object.provider);
      const keep = Math.max(1, Math.ceil(object.expiresAt - Date.now()) + KEEP_AFTER_EXPIRY_MS);
      await run(
        'reconciliation.watch',
        RECONCILE_WATCH,
        [...sets, objects + member],
        [
          member,
          JSON.stringify(object.status),
          String(object.reads),
          String(Math.round(object.dueAt)),
          String(Math.round(object.expiresAt)),
          String(keep),
          String(Date.now()),
        ],
      );
    },
    async claim(provider, { now, limit, leaseSeconds }) {
      const leaseMs = milliseconds(leaseSeconds, 'leaseSeconds', 'reconciliation.claim');
      checkNumbers('reconciliation.claim', { limit }, { now });
      if (limit === 0) return [];
      const { sets, objects } = keysOf(provider);
      const reply = await run('reconciliation.claim', RECONCILE_CLAIM, sets, [
        objects,
        String(Math.round(now)),
        String(limit),
        String(leaseMs),
        crypto.randomUUID(),
      ]);
      if (!Array.isArray(reply) || reply.length % 6 !== 0)
        throw unexpectedReply('reconciliation.claim', reply);
      const claimed: ClaimedObject[] = [];
      for (let index = 0; index < reply.length; index += 6) {
        const found = claimedObject(provider, reply.slice(index, index + 6));
        if (found === undefined) throw unexpectedReply('reconciliation.claim', reply);
        claimed.push(found);
      }
      // The script takes objects whose lease ended in the order of their `dueAt` too; sorted again for clarity.
      return claimed.sort((a, b) => a.object.dueAt - b.object.dueAt);
    },
    async settle({ provider, kind, id }, lease, next) {
      const member = memberOf(kind, id);
      if (next !== 'final')
        checkNumbers('reconciliation.settle', { reads: next.reads }, { dueAt: next.dueAt });
      const { sets, objects } = keysOf(provider);
      const values =
        next === 'final'
          ? [member, lease, 'final']
          : [
              member,
              lease,
              'next',
              JSON.stringify(next.status),
              String(next.reads),
              String(Math.round(next.dueAt)),
            ];
      const reply = await run(
        'reconciliation.settle',
        RECONCILE_SETTLE,
        [...sets, objects + member],
        values,
        [lease],
      );
      if (reply !== 0 && reply !== 1) throw unexpectedReply('reconciliation.settle', reply);
      return reply === 1;
    },
    async spend(provider, { now, reads, perMinute }) {
      checkNumbers('reconciliation.spend', { reads }, { now });
      if (Number.isNaN(perMinute)) {
        throw new ValidationError([{ path: 'perMinute', message: 'must be a number of reads' }], {
          operation: 'reconciliation.spend',
        });
      }
      if (reads === 0) return 0;
      const budget = Math.max(0, Math.min(Math.floor(perMinute), Number.MAX_SAFE_INTEGER));
      const minute = Math.floor(now / 60_000);
      const reply = await run(
        'reconciliation.spend',
        RECONCILE_SPEND,
        [`${keysOf(provider).reads}${minute}`],
        [String(reads), String(budget)],
      );
      if (typeof reply !== 'number' || !Number.isSafeInteger(reply)) {
        throw unexpectedReply('reconciliation.spend', reply);
      }
      return reply;
    },
    async backlog(provider, now) {
      checkNumbers('reconciliation.backlog', {}, { now });
      const { sets, objects } = keysOf(provider);
      const reply = await run('reconciliation.backlog', RECONCILE_BACKLOG, sets, [
        objects,
        String(Math.round(now)),
      ]);
      if (!Array.isArray(reply) || reply.length !== 3) throw unexpectedReply('reconciliation.backlog', reply);
      const [watched, due, oldest] = reply as unknown[];
      const oldestDueAt = oldest === '' ? null : Number(oldest);
      if (typeof watched !== 'number' || typeof due !== 'number' || Number.isNaN(oldestDueAt)) {
        throw unexpectedReply('reconciliation.backlog', reply);
      }
      return { watched, due, oldestDueAt };
    },
  };
}

/** The sorted-set member of an object: `<kind>:<id>` (a kind holds no `:`, so the first one splits them). */
function memberOf(kind: WatchedObject['kind'], id: string): string {
  return `${kind}:${id}`;
}

/** One claimed object from the claim script's {member, lease, status JSON, reads, dueAt, expiresAt}. */
function claimedObject(provider: string, row: unknown[]): ClaimedObject | undefined {
  const [member, lease, status, reads, dueAt, expiresAt] = row;
  if (typeof member !== 'string' || typeof lease !== 'string' || typeof status !== 'string') return undefined;
  const split = member.indexOf(':');
  const kind = member.slice(0, split) as WatchedObject['kind'];
  let parsedStatus: unknown;
  try {
    parsedStatus = JSON.parse(status);
  } catch {
    return undefined;
  }
  const numbers = [reads, dueAt, expiresAt].map(Number);
  if (
    !KINDS.includes(kind) ||
    (parsedStatus !== null && typeof parsedStatus !== 'string') ||
    numbers.some((value) => !Number.isSafeInteger(value))
  ) {
    return undefined;
  }
  const [readCount, due, expiry] = numbers as [number, number, number];
  return {
    object: {
      provider,
      kind,
      id: member.slice(split + 1),
      status: parsedStatus,
      reads: readCount,
      dueAt: due,
      expiresAt: expiry,
    },
    lease,
  };
}
