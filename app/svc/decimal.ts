/**
 * Exact decimal money. The service sends BigDecimal (18,2) values as JSON strings or numbers;
 * the client keeps them as canonical decimal strings (`Money`) and does arithmetic on bigint
 * minor units, never on floats.
 */

export type Money = string & { readonly __money: unique symbol };

const DECIMAL_RE = /^([+-])?(\d+)(?:\.(\d+))?$/;
const EXP_RE = /^([+-])?(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/;

export class DecimalError extends Error {}

/** Scaled integer: value = units / 10^scale. */
export interface Scaled {
  units: bigint;
  scale: number;
}

export function parseDecimal(input: string | number): Scaled {
  // String(NaN) and String(±Infinity) are not decimals: the expressions below refuse them.
  let text = typeof input === "number" ? String(input) : input.trim();
  const exp = EXP_RE.exec(text);
  if (exp) text = expandExponent(exp);
  const m = DECIMAL_RE.exec(text);
  if (!m) throw new DecimalError(`Not a decimal: ${JSON.stringify(String(input).slice(0, 40))}`);
  const frac = m[3] ?? "";
  const units = BigInt(`${m[2]}${frac}`) * (m[1] === "-" ? -1n : 1n);
  return { units, scale: frac.length };
}

/**
 * Largest exponent accepted either way. Every finite JavaScript number fits (String(n) writes
 * e+308 at most, e-324 at least); beyond it a few characters of input ("1e50000000", a JSON
 * number the lossless parser keeps as text) would spell out millions of digits and block the
 * process for seconds while BigInt parses them.
 */
const MAX_EXPONENT = 1000;

function expandExponent(m: RegExpExecArray): string {
  const exponent = Number(m[4]);
  // Stryker disable next-line StringLiteral: message
  if (Math.abs(exponent) > MAX_EXPONENT) throw new DecimalError("Exponent out of range");
  const sign = m[1] === "-" ? "-" : "";
  const digits = `${m[2]}${m[3] ?? ""}`;
  const point = m[2]!.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Every caller asks for a scale at least the value's own (`scale >= v.scale`). */
function rescale(v: Scaled, scale: number): bigint {
  return v.units * 10n ** BigInt(scale - v.scale);
}

export function formatScaled(v: Scaled): string {
  const neg = v.units < 0n;
  const abs = (neg ? -v.units : v.units).toString().padStart(v.scale + 1, "0");
  const int = abs.slice(0, abs.length - v.scale);
  const frac = v.scale > 0 ? `.${abs.slice(abs.length - v.scale)}` : "";
  return `${neg ? "-" : ""}${int}${frac}`;
}

/** Canonical money text: at least two fraction digits, more only when the input had them. */
export function toMoney(input: string | number): Money {
  const v = parseDecimal(input);
  const scale = Math.max(2, v.scale);
  return formatScaled({ units: rescale(v, scale), scale }) as Money;
}

export function isDecimal(input: unknown): boolean {
  if (typeof input !== "string" && typeof input !== "number") return false;
  try {
    parseDecimal(input);
    return true;
  } catch {
    return false;
  }
}

/** Money → cents; throws when the value has more than two fraction digits. */
export function toCents(input: string | number): bigint {
  const v = parseDecimal(input);
  if (v.scale <= 2) return rescale(v, 2);
  const factor = 10n ** BigInt(v.scale - 2);
  // Stryker disable next-line StringLiteral: message
  if (v.units % factor !== 0n) throw new DecimalError("More than two fraction digits");
  return v.units / factor;
}

export function fromCents(cents: bigint): Money {
  return formatScaled({ units: cents, scale: 2 }) as Money;
}

function align(a: string | number, b: string | number): [bigint, bigint, number] {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const scale = Math.max(2, x.scale, y.scale);
  return [rescale(x, scale), rescale(y, scale), scale];
}

export function addMoney(...values: Array<string | number>): Money {
  let acc: Scaled = { units: 0n, scale: 2 };
  for (const v of values) {
    const [x, y, scale] = align(formatScaled(acc), v);
    acc = { units: x + y, scale };
  }
  return formatScaled(acc) as Money;
}

export function subtractMoney(a: string | number, b: string | number): Money {
  const [x, y, scale] = align(a, b);
  return formatScaled({ units: x - y, scale }) as Money;
}

/** Money × integer quantity. */
export function multiplyMoney(a: string | number, quantity: number | bigint): Money {
  if (typeof quantity === "number" && !Number.isInteger(quantity)) {
    // Stryker disable next-line StringLiteral: message
    throw new DecimalError("Quantity must be an integer");
  }
  const v = parseDecimal(a);
  const scale = Math.max(2, v.scale);
  return formatScaled({ units: rescale(v, scale) * BigInt(quantity), scale }) as Money;
}

export function compareMoney(a: string | number, b: string | number): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}
