/**
 * Money helpers (docs/architecture.md#money). Every check works on the decimal text of an amount, never on float
 * arithmetic, so `0.1 + 0.2`-style drift can never reach the wire.
 */
import type { ValidationIssue } from './errors.js';

/** ISO 4217 currencies whose minor digits differ from the usual 2, by their digits. */
const MINOR_DIGITS = new Map(
  Object.entries({
    0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
    3: 'BHD IQD JOD KWD LYD OMR TND',
    4: 'CLF UYW',
  }).flatMap(([digits, codes]) => codes.split(' ').map((code) => [code, Number(digits)] as const)),
);

/** Number of minor digits of an ISO 4217 currency (2 unless the standard says otherwise). */
export function minorDigits(currency: string): number {
  return MINOR_DIGITS.get(currency.toUpperCase()) ?? 2;
}

/** Upper-cases a currency code; the wire and the records always carry upper case (docs/architecture.md#money). */
export function normaliseCurrency(currency: string): string {
  return currency.toUpperCase();
}

/** Plain decimal text of a finite number, without exponent notation (1e-7 → "0.0000001"). */
export function decimalText(amount: number): string {
  const text = String(amount);
  if (!/e/i.test(text)) return text;
  const [mantissa = '0', exponentText = '0'] = text.toLowerCase().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const [whole = '0', fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + exponent;
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? '-' : '') + body.replace(/^0+(?=\d)/, '');
}

/** Number of digits after the decimal point of `amount`, read from its decimal text. */
export function fractionDigits(amount: number): number {
  const fraction = decimalText(amount).split('.')[1];
  return fraction ? fraction.length : 0;
}

/** What an amount must be, beyond a finite number. */
export interface AmountRule {
  /** `major`: at most the currency's minor digits. `minor`: an integer. */
  unit: 'major' | 'minor';
  /** The currency, for the minor digits of a major-unit amount. */
  currency?: string | undefined;
  /** Zero allowed (true for nothing that charges). Default false. */
  allowZero?: boolean;
  /** The largest amount the provider accepts, in the same unit; never above {@link maxAmount}. */
  max?: number | undefined;
}

/** 15 significant digits: every decimal number this long survives a round trip through a float exactly. */
const MAX_EXACT_MINOR_OF_MAJOR = 999_999_999_999_999;

/**
 * The largest amount core lets through, so that an amount is always counted exactly and written as plain digits
 * (docs/architecture.md#money): `Number.MAX_SAFE_INTEGER` minor units, or 15 significant digits of major units, since
 * a float with more digits may not read back as the number the caller wrote.
 */
export function maxAmount(rule: Pick<AmountRule, 'unit' | 'currency'>): number {
  if (rule.unit === 'minor') return Number.MAX_SAFE_INTEGER;
  // Without a currency, the usual 2 minor digits (the digit check makes the same assumption).
  return toMajorUnits(MAX_EXACT_MINOR_OF_MAJOR, rule.currency ?? 'USD');
}

/** Checks an amount: finite, not negative, not zero unless allowed, no finer than the unit allows. */
export function amountIssues(amount: unknown, path: string, rule: AmountRule): ValidationIssue[] {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    return [{ path, message: 'must be a finite number' }];
  }
  if (amount < 0) return [{ path, message: 'must not be negative' }];
  if (amount === 0 && !rule.allowZero) return [{ path, message: 'must be greater than zero' }];
  const ceiling = Math.min(maxAmount(rule), rule.max ?? Number.POSITIVE_INFINITY);
  if (amount > ceiling) return [{ path, message: `must be at most ${decimalText(ceiling)}` }];
  if (rule.unit === 'minor') {
    return Number.isSafeInteger(amount)
      ? []
      : [{ path, message: 'must be an integer amount in minor units (10000 = 100.00)' }];
  }
  const digits = rule.currency ? minorDigits(rule.currency) : 2;
  if (fractionDigits(amount) > digits) {
    return [
      {
        path,
        message: `has more than ${digits} decimal digit(s), the minor unit of ${rule.currency ?? 'the currency'}`,
      },
    ];
  }
  return [];
}

/** Parses a decimal amount sent as text (`"5000.00"`) into a number; `undefined` when it is not a plain decimal. */
export function parseDecimal(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** Converts a major-unit amount to integer minor units by moving the decimal point in its text. */
export function toMinorUnits(amount: number, currency: string): number {
  const digits = minorDigits(currency);
  const [whole = '0', fraction = ''] = decimalText(amount).replace('-', '').split('.');
  if (fraction.length > digits)
    throw new RangeError(`${amount} has more than ${digits} decimal digits for ${currency}`);
  const minor = Number(whole + fraction.padEnd(digits, '0'));
  if (!Number.isSafeInteger(minor))
    throw new RangeError(
      `${decimalText(amount)} ${currency} is too large to be counted exactly in minor units`,
    );
  return amount < 0 ? -minor : minor;
}

/** Converts integer minor units to a major-unit amount by placing the decimal point in the text. */
export function toMajorUnits(minor: number, currency: string): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not an integer amount in minor units`);
  const digits = minorDigits(currency);
  if (digits === 0) return minor;
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  const major = Number(`${text.slice(0, -digits)}.${text.slice(-digits)}`);
  return minor < 0 ? -major : major;
}
