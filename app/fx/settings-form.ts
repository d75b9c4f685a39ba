/** The settings page's exchange-rates form: the typed rates parsed, or a sentence saying why not. */

/** "EUR 1.0812" per line (also "EUR=1.0812"): USD per one unit; a clear error otherwise. */
export function parseRates(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > 50) return "At most 50 rates";
  for (const line of lines) {
    const m = /^([A-Za-z]{3})\s*[=:\s]\s*(\d{1,6}(?:\.\d{1,8})?)$/.exec(line);
    if (!m || Number(m[2]) <= 0) {
      return `"${line.slice(0, 40)}" is not a rate: write the currency code and the USD for one unit, e.g. EUR 1.0812`;
    }
    const code = m[1]!.toUpperCase();
    if (code === "USD") return "USD needs no rate";
    if (out[code]) return `${code} is listed twice`;
    out[code] = m[2]!;
  }
  return out;
}
