// financial_transaction payloads checked in exact decimal arithmetic at the currency's
// exponent (integers of minor units, never binary floating point): non-negative amount and
// fee, an ISO 4217 currency, every value written with at most the currency's decimal places
// (an amount with more is refused, never rounded: "10.001" USD and "10.0" JPY are refused),
// and balance_after = balance_before - amount - fee. Pure. JSON numbers reach this file
// only when the gateway's strict reader found them exact (core/strict-json.ts exactNumbers).

/** Active ISO 4217 codes and their minor units (exponent). */
const ISO_4217: Record<string, number> = {
  AED: 2,
  AFN: 2,
  ALL: 2,
  AMD: 2,
  ANG: 2,
  AOA: 2,
  ARS: 2,
  AUD: 2,
  AWG: 2,
  AZN: 2,
  BAM: 2,
  BBD: 2,
  BDT: 2,
  BGN: 2,
  BHD: 3,
  BIF: 0,
  BMD: 2,
  BND: 2,
  BOB: 2,
  BRL: 2,
  BSD: 2,
  BTN: 2,
  BWP: 2,
  BYN: 2,
  BZD: 2,
  CAD: 2,
  CDF: 2,
  CHF: 2,
  CLP: 0,
  CNY: 2,
  COP: 2,
  CRC: 2,
  CUP: 2,
  CVE: 2,
  CZK: 2,
  DJF: 0,
  DKK: 2,
  DOP: 2,
  DZD: 2,
  EGP: 2,
  ERN: 2,
  ETB: 2,
  EUR: 2,
  FJD: 2,
  FKP: 2,
  GBP: 2,
  GEL: 2,
  GHS: 2,
  GIP: 2,
  GMD: 2,
  GNF: 0,
  GTQ: 2,
  GYD: 2,
  HKD: 2,
  HNL: 2,
  HTG: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  IQD: 3,
  IRR: 2,
  ISK: 0,
  JMD: 2,
  JOD: 3,
  JPY: 0,
  KES: 2,
  KGS: 2,
  KHR: 2,
  KMF: 0,
  KPW: 2,
  KRW: 0,
  KWD: 3,
  KYD: 2,
  KZT: 2,
  LAK: 2,
  LBP: 2,
  LKR: 2,
  LRD: 2,
  LSL: 2,
  LYD: 3,
  MAD: 2,
  MDL: 2,
  MGA: 2,
  MKD: 2,
  MMK: 2,
  MNT: 2,
  MOP: 2,
  MRU: 2,
  MUR: 2,
  MVR: 2,
  MWK: 2,
  MXN: 2,
  MYR: 2,
  MZN: 2,
  NAD: 2,
  NGN: 2,
  NIO: 2,
  NOK: 2,
  NPR: 2,
  NZD: 2,
  OMR: 3,
  PAB: 2,
  PEN: 2,
  PGK: 2,
  PHP: 2,
  PKR: 2,
  PLN: 2,
  PYG: 0,
  QAR: 2,
  RON: 2,
  RSD: 2,
  RUB: 2,
  RWF: 0,
  SAR: 2,
  SBD: 2,
  SCR: 2,
  SDG: 2,
  SEK: 2,
  SGD: 2,
  SHP: 2,
  SLE: 2,
  SOS: 2,
  SRD: 2,
  SSP: 2,
  STN: 2,
  SVC: 2,
  SYP: 2,
  SZL: 2,
  THB: 2,
  TJS: 2,
  TMT: 2,
  TND: 3,
  TOP: 2,
  TRY: 2,
  TTD: 2,
  TWD: 2,
  TZS: 2,
  UAH: 2,
  UGX: 0,
  USD: 2,
  UYU: 2,
  UYW: 4,
  UZS: 2,
  VES: 2,
  VND: 0,
  VUV: 0,
  WST: 2,
  XAF: 0,
  XCD: 2,
  XOF: 0,
  XPF: 0,
  YER: 2,
  ZAR: 2,
  ZMW: 2,
  ZWG: 2,
};

export function isIso4217(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(ISO_4217, code);
}

/** An exact decimal: value = units / 10^scale. */
export interface Dec {
  units: bigint;
  scale: number;
}

const DECIMAL_RE = /^([+-]?)(\d{1,40})(?:\.(\d{1,40}))?$/;

/** Parses a decimal string, or a JSON number through its shortest round-trip text. Null when not a finite decimal. */
export function parseDecimal(v: unknown): Dec | null {
  let text: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    text = String(v);
    const e = /^([+-]?\d+(?:\.\d+)?)e([+-]\d+)$/i.exec(text);
    if (e) {
      const base = parseDecimal(e[1]);
      const exp = Number(e[2]);
      if (!base || Math.abs(exp) > 40) return null;
      return exp >= 0
        ? { units: base.units * 10n ** BigInt(exp), scale: base.scale }
        : { units: base.units, scale: base.scale - exp };
    }
  } else if (typeof v === 'string') text = v.trim();
  else return null;
  const m = DECIMAL_RE.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  const units = BigInt(`${m[2]}${frac}`) * (m[1] === '-' ? -1n : 1n);
  return { units, scale: frac.length };
}

function align(a: Dec, scale: number): bigint {
  return a.units * 10n ** BigInt(scale - a.scale);
}

export function formatDecimal(d: Dec): string {
  const neg = d.units < 0n;
  const abs = (neg ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const int = d.scale ? abs.slice(0, -d.scale) : abs;
  const frac = d.scale ? abs.slice(-d.scale) : '';
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

export type FinancialCheck =
  { ok: true; proof: Record<string, unknown>; detail: string } | { ok: false; reason: string; detail: string };

export function checkFinancialTransaction(payload: Record<string, unknown>): FinancialCheck {
  const fields = ['amount', 'balance_before', 'balance_after'] as const;
  const vals: Record<string, Dec> = {};
  for (const f of fields) {
    const d = parseDecimal(payload[f]);
    if (!d) return { ok: false, reason: 'invalid_amount', detail: `${f} must be a decimal string or a finite number` };
    vals[f] = d;
  }
  const fee = payload.fee === undefined || payload.fee === null ? { units: 0n, scale: 0 } : parseDecimal(payload.fee);
  if (!fee) return { ok: false, reason: 'invalid_amount', detail: 'fee must be a decimal string or a finite number' };
  vals.fee = fee;
  const currency = payload.currency;
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency) || !isIso4217(currency)) {
    return {
      ok: false,
      reason: 'invalid_currency',
      detail: 'currency must be an active ISO 4217 code (three upper-case letters)',
    };
  }
  if ((vals.amount as Dec).units < 0n)
    return { ok: false, reason: 'negative_amount', detail: 'amount must not be negative' };
  if (fee.units < 0n) return { ok: false, reason: 'negative_fee', detail: 'fee must not be negative' };
  const minor = ISO_4217[currency] as number;
  for (const f of [...fields, 'fee'] as const) {
    const d = vals[f] as Dec;
    if (d.scale > minor)
      return {
        ok: false,
        reason: 'precision_exceeds_minor_unit',
        detail: `${f} has ${d.scale} decimal places; ${currency} allows ${minor}`,
      };
  }
  // Everything in minor units (the currency's exponent): exact integers.
  const scale = minor;
  const expected = align(vals.balance_before as Dec, scale) - align(vals.amount as Dec, scale) - align(fee, scale);
  const actual = align(vals.balance_after as Dec, scale);
  const exp = formatDecimal({ units: expected, scale });
  if (expected !== actual) {
    return {
      ok: false,
      reason: 'balance_mismatch',
      detail: `balance_after must equal balance_before - amount - fee = ${exp} ${currency}`,
    };
  }
  return {
    ok: true,
    detail: `balance_after = balance_before - amount - fee holds exactly (${exp} ${currency})`,
    proof: {
      engine: 'a2a_financial',
      method: 'exact decimal arithmetic in minor units (integers at the currency exponent)',
      currency,
      minor_unit: minor,
      amount: formatDecimal({ units: align(vals.amount as Dec, scale), scale }),
      fee: formatDecimal({ units: align(fee, scale), scale }),
      balance_before: formatDecimal({ units: align(vals.balance_before as Dec, scale), scale }),
      balance_after: formatDecimal({ units: actual, scale }),
      identity: 'balance_after = balance_before - amount - fee',
    },
  };
}
