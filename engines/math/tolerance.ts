// The tolerance bound of the contract: maximum allowed = max(0.01, |calculated_value| * 0.01),
// inclusive. Negative, NaN, Infinity and non-numeric tolerances are refused as well. All
// comparisons are decimal (decimal.js), so "exactly at the bound" is exact: for a calculated
// value of 250 the bound is 2.5 and 2.5 is accepted.
import { M, type BigNumberValue } from './mathjs-instance.js';
import { MATH_LIMITS } from './limits.js';

export type ParsedTolerance =
  | { ok: true; value: BigNumberValue; text: string }
  | {
      ok: false;
      error: 'tolerance_not_numeric' | 'tolerance_not_finite' | 'tolerance_negative';
      text: string;
      message: string;
    };

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;
const NON_FINITE = /^[+-]?(nan|inf|infinity)$/i;

export function parseTolerance(raw: unknown): ParsedTolerance {
  if (typeof raw === 'number') {
    const text = String(raw);
    if (!Number.isFinite(raw))
      return {
        ok: false,
        error: 'tolerance_not_finite',
        text,
        message: `The tolerance ${text} is not a finite number.`,
      };
    if (raw < 0) return { ok: false, error: 'tolerance_negative', text, message: `The tolerance ${text} is negative.` };
    return { ok: true, value: M.bignumber(text), text };
  }
  if (typeof raw === 'string') {
    const text = raw.trim().slice(0, MATH_LIMITS.maxToleranceLength);
    if (NON_FINITE.test(text))
      return {
        ok: false,
        error: 'tolerance_not_finite',
        text,
        message: `The tolerance ${text} is not a finite number.`,
      };
    if (raw.trim().length > MATH_LIMITS.maxToleranceLength || !NUMERIC.test(text)) {
      return { ok: false, error: 'tolerance_not_numeric', text, message: 'The tolerance is not a number.' };
    }
    const value = M.bignumber(text);
    if (!value.isFinite())
      return {
        ok: false,
        error: 'tolerance_not_finite',
        text,
        message: `The tolerance ${text} is not a finite number.`,
      };
    if (value.isNegative() && !value.isZero())
      return { ok: false, error: 'tolerance_negative', text, message: `The tolerance ${text} is negative.` };
    return { ok: true, value, text };
  }
  const text = raw === null || raw === undefined ? String(raw) : typeof raw === 'boolean' ? String(raw) : typeof raw;
  return { ok: false, error: 'tolerance_not_numeric', text, message: 'The tolerance is not a number.' };
}

/** max(0.01, |calculated| * 0.01) for the magnitude of the calculated value. */
export function maxAllowedTolerance(calculatedMagnitude: BigNumberValue): BigNumberValue {
  const floor = M.bignumber('0.01');
  const relative = calculatedMagnitude.abs().mul(floor);
  return relative.gt(floor) ? relative : floor;
}
