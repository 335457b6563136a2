/**
 * The conformance suite's own tests (docs/architecture.md#conformance-suite): the fixture adapter passes it as
 * `describe` blocks, and each money bug planted in the fixture makes the check that guards against it fail.
 */
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_MUTATIONS,
  checkAdapterContract,
  checkContractMutation,
  runAdapterContract,
} from '../../src/testing/contract.js';
import { PLANTED_BUGS, type PlantedBug } from './gateway-adapter.js';
import { gatewayContract } from './gateway-contract.js';

runAdapterContract(gatewayContract());

/** The check each planted bug must fail (a pattern on its title). */
const CAUGHT_BY: Readonly<Record<PlantedBug, RegExp>> = {
  'unknown-status-read-as-paid': /never reads a failure, pending or unknown status as paid/,
  'abandoned-read-as-paid': /never reads a failure, pending or unknown status as paid/,
  'failed-read-as-paid': /never reads a failure, pending or unknown status as paid/,
  'refund-marked-retry-safe': /^refunds\.create under HTTP 503 at each upstream step/,
  'checkout-marked-retry-safe':
    /^checkouts\.create under a reply lost after the provider acted at each upstream step/,
  'float-amount-conversion': /^sends 19\.99, 0\.29/,
  'missing-not-found-rule': /resolves a read of an id the provider does not hold to null/,
  'record-names-another-provider': /returns records that name its provider/,
  'forged-webhook-accepted': /refuses a tampered webhook \(signed with another secret\)/,
  'replayed-webhook-accepted': /with a deduplication store, skips a redelivery/,
  'credential-in-error': /puts no credential in any error/,
  'refusal-after-lost-reply-final':
    /^refunds\.create under a reply lost after the provider acted at each upstream step/,
  'retry-starts-again':
    /^checkouts\.create under a reply lost after the provider acted at each upstream step/,
  'read-marked-not-retry-safe':
    /^retries each read of an id the provider does not hold when one attempt meets HTTP 503/,
  'refund-ignores-failed-check': /^refunds\.create under HTTP 500 at each upstream step/,
  'unreadable-reply-read-as-refusal': /^checkouts\.create under a truncated reply at each upstream step/,
  'reference-per-instance': /^checkouts\.create whose instance dies after the money step/,
  'webhook-key-per-instance': /^runs each callback once when 4 instances handle one delivery at once/,
};

describe('the conformance suite catches each money bug planted in the fixture adapter', () => {
  // Each bug runs only the checks that must catch it (as the mutation corpus does): running the whole suite per bug
  // proves nothing more, and the clean run below shows the other checks pass on the fixture.
  it.each(PLANTED_BUGS)(
    '%s',
    async (bug) => {
      const outcome = await checkContractMutation(gatewayContract(), {
        name: bug,
        kind: 'planted in the fixture',
        caughtBy: CAUGHT_BY[bug],
        plant: () => gatewayContract(bug),
      });
      expect(outcome.caught, `${bug} passed ${CAUGHT_BY[bug]}`).toBe(true);
    },
    120_000,
  );

  it('finds nothing to report in the fixture without a bug', async () => {
    expect(await checkAdapterContract(gatewayContract())).toEqual([]);
  }, 120_000);
});

describe('the conformance suite catches each bug of the mutation corpus planted into the fixture adapter', () => {
  it.each(CONTRACT_MUTATIONS.map((mutation) => [mutation.name, mutation] as const))(
    '%s',
    async (_name, mutation) => {
      const outcome = await checkContractMutation(gatewayContract(), mutation);
      expect(outcome.applicable, `${mutation.name} applies to the fixture`).toBe(true);
      expect(outcome.caught, `${mutation.name} passed ${mutation.caughtBy}`).toBe(true);
    },
    60_000,
  );
});
