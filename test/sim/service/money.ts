/**
 * Money as bigint cents. Inputs are decimal strings (or JSON numbers from a client) with at
 * most two fraction digits; arithmetic never touches floats.
 */
const MONEY_RE = /^(-)?(\d{1,16})(?:\.(\d{1,2}))?$/;

export type Cents = bigint;

export function parseMoney(input: string | number): Cents {
  const text = typeof input === "number" ? String(input) : input.trim();
  const m = MONEY_RE.exec(text);
  if (!m) throw new Error(`Not a money amount with at most 2 decimals: ${JSON.stringify(input)}`);
  const whole = BigInt(m[2] ?? "0");
  const frac = BigInt((m[3] ?? "").padEnd(2, "0"));
  const cents = whole * 100n + frac;
  return m[1] ? -cents : cents;
}

export function isMoney(input: unknown): boolean {
  if (typeof input !== "string" && typeof input !== "number") return false;
  if (typeof input === "number" && !Number.isFinite(input)) return false;
  return MONEY_RE.test(typeof input === "number" ? String(input) : input.trim());
}

export function formatMoney(cents: Cents): string {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  const text = `${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`;
  return neg ? `-${text}` : text;
}

/** For fields the contract types as a JSON number (BigDecimal serialised by the service). */
export function moneyNumber(cents: Cents): number {
  return Number(formatMoney(cents));
}

export function sumCents(values: Iterable<Cents>): Cents {
  let total = 0n;
  for (const v of values) total += v;
  return total;
}
