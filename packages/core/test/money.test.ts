import { describe, expect, it } from 'vitest';
import {
  amountIssues,
  decimalText,
  maxAmount,
  minorDigits,
  normaliseCurrency,
  parseDecimal,
  toMajorUnits,
  toMinorUnits,
} from '../src/money.js';

describe('money helpers', () => {
  it('knows the minor digits of ISO 4217 currencies', () => {
    expect(minorDigits('NGN')).toBe(2);
    expect(minorDigits('jpy')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
  });

  it('upper-cases currency codes', () => {
    expect(normaliseCurrency('czk')).toBe('CZK');
  });

  it('accepts a major-unit amount with no more digits than the currency has', () => {
    expect(amountIssues(100.5, 'amount', { unit: 'major', currency: 'NGN' })).toEqual([]);
    expect(amountIssues(100.55, 'amount', { unit: 'major', currency: 'NGN' })).toEqual([]);
    expect(amountIssues(1000, 'amount', { unit: 'major', currency: 'JPY' })).toEqual([]);
  });

  it('refuses over-precise, negative, zero, non-finite and non-number amounts, naming the field', () => {
    expect(amountIssues(100.555, 'amount', { unit: 'major', currency: 'NGN' })).toEqual([
      { path: 'amount', message: 'has more than 2 decimal digit(s), the minor unit of NGN' },
    ]);
    expect(amountIssues(10.5, 'amount', { unit: 'major', currency: 'JPY' })[0]?.path).toBe('amount');
    expect(amountIssues(-1, 'amount', { unit: 'major' })).toEqual([
      { path: 'amount', message: 'must not be negative' },
    ]);
    expect(amountIssues(0, 'amount', { unit: 'major' })).toEqual([
      { path: 'amount', message: 'must be greater than zero' },
    ]);
    expect(amountIssues(0, 'amount', { unit: 'major', allowZero: true })).toEqual([]);
    expect(amountIssues(Number.NaN, 'x', { unit: 'minor' })).toEqual([
      { path: 'x', message: 'must be a finite number' },
    ]);
    expect(amountIssues(Number.POSITIVE_INFINITY, 'x', { unit: 'minor' })[0]?.message).toBe(
      'must be a finite number',
    );
    expect(amountIssues('100', 'x', { unit: 'minor' })[0]?.message).toBe('must be a finite number');
  });

  it('requires integers for minor-unit amounts', () => {
    expect(amountIssues(10000, 'amount', { unit: 'minor' })).toEqual([]);
    expect(amountIssues(100.5, 'amount', { unit: 'minor' })).toEqual([
      { path: 'amount', message: 'must be an integer amount in minor units (10000 = 100.00)' },
    ]);
  });

  it('reads tiny and huge numbers as plain decimals', () => {
    expect(decimalText(1e-7)).toBe('0.0000001');
    expect(decimalText(1.5e21)).toBe('1500000000000000000000');
    expect(amountIssues(1e-7, 'amount', { unit: 'major', currency: 'USD' })[0]?.message).toContain(
      'more than 2',
    );
  });

  it('converts between major and minor units without float drift', () => {
    expect(toMinorUnits(0.29, 'USD')).toBe(29); // 0.29 * 100 is 28.999999999999996 in floats
    expect(toMinorUnits(1.1, 'KWD')).toBe(1100);
    expect(toMajorUnits(29, 'USD')).toBe(0.29);
    expect(toMajorUnits(5, 'USD')).toBe(0.05);
    expect(toMajorUnits(500, 'JPY')).toBe(500);
    expect(() => toMinorUnits(0.001, 'USD')).toThrow(RangeError);
  });

  it('parses decimal strings from provider replies exactly', () => {
    expect(parseDecimal('5000.00')).toBe(5000);
    expect(parseDecimal(' 200.50 ')).toBe(200.5);
    expect(parseDecimal('1e3')).toBeUndefined();
    expect(parseDecimal('abc')).toBeUndefined();
  });
});

describe('amount bounds and wire text (docs/architecture.md#money)', () => {
  it('refuses amounts beyond exact minor units, such as 1e21 and Number.MAX_VALUE, in either unit', () => {
    for (const amount of [1e21, Number.MAX_VALUE, Number.MAX_SAFE_INTEGER + 2]) {
      expect(amountIssues(amount, 'amount', { unit: 'minor' })).toEqual([
        { path: 'amount', message: 'must be at most 9007199254740991' },
      ]);
    }
    expect(amountIssues(1e21, 'amount', { unit: 'major', currency: 'USD' })).toEqual([
      { path: 'amount', message: 'must be at most 9999999999999.99' },
    ]);
    expect(amountIssues(1e16, 'amount', { unit: 'major', currency: 'JPY' })[0]?.message).toBe(
      'must be at most 999999999999999',
    );
    expect(amountIssues(9999999999999.99, 'amount', { unit: 'major', currency: 'USD' })).toEqual([]);
    expect(amountIssues(Number.MAX_SAFE_INTEGER, 'amount', { unit: 'minor' })).toEqual([]);
    expect(maxAmount({ unit: 'major', currency: 'KWD' })).toBe(999999999999.999);
  });

  it("applies a provider's tighter ceiling", () => {
    expect(amountIssues(1_000_001, 'amount', { unit: 'major', currency: 'NGN', max: 1_000_000 })).toEqual([
      { path: 'amount', message: 'must be at most 1000000' },
    ]);
    expect(amountIssues(1_000_000, 'amount', { unit: 'major', currency: 'NGN', max: 1_000_000 })).toEqual([]);
  });

  it('writes every accepted amount as plain digits, never in exponent notation', () => {
    expect(decimalText(1e21)).toBe('1000000000000000000000');
    expect(decimalText(1.5e-7)).toBe('0.00000015');
    expect(decimalText(9999999999999.99)).toBe('9999999999999.99');
    expect(toMinorUnits(9999999999999.99, 'USD')).toBe(999999999999999);
    expect(() => toMinorUnits(1e21, 'USD')).toThrow(RangeError);
  });
});
