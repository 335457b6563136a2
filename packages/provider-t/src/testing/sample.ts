/** A sample Provider T transfer for tests: the data a complete transfer's `provider_metadata` carries. */

/** Freezes `value` and everything it holds, so one test cannot change the sample another test reads. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}

/**
 * A valid sandbox transfer's `provider_metadata` (sender, receiver and the compliance data the update step
 * requires, docs/providers/provider-t.md#transfer: quote → update → commit), for your own tests against Provider T's sandbox or the
 * simulator of `@pay/provider-t/testing`:
 *
 * ```ts
 * await pay.payments.create({ amount: 100, currency: 'USD', provider_metadata: sampleTransferMetadata });
 * ```
 *
 * Deeply frozen: spread it into a copy to change a field (e.g. `{ ...sampleTransferMetadata, receiver }`).
 * The people in it are fictitious.
 */
export const sampleTransferMetadata = deepFreeze({
  sender: {
    name: { firstName: 'Maria', lastName: 'Lopez' },
    address: {
      line1: '100 Main St',
      city: 'Dallas',
      countrySubdivisionCode: 'US-TX',
      countryCode: 'USA',
      postalCode: '75201',
    },
    mobilePhone: { number: '2145550123', countryDialCode: '1' },
    email: 'maria.lopez@example.com',
    personalDetails: { dateOfBirth: '1985-04-12', birthCountryCode: 'MEX' },
    primaryIdentification: { typeCode: 'PAS', id: 'X1234567', issueCountryCode: 'USA' },
  },
  receiver: {
    name: { firstName: 'Jose', lastName: 'Lopez' },
    address: { line1: 'Calle 5 de Mayo 12', city: 'Guadalajara', countryCode: 'MEX' },
  },
  transactionInformation: {
    purposeOfTransactionCode: 'FAMILY_SUPPORT',
    sourceOfFundsCode: 'SALARY',
  },
} as const);
