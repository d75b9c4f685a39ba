/**
 * Option values as a comparable key, so that a shop variant ("Red / M", options Red and M) and
 * a catalog variant (variantKey "Red-M") pair up whatever the order, case or separators.
 */
export function optionKey(values: string[]): string {
  return values
    .flatMap((v) => v.split(/[\s/-]+/))
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean)
    .sort()
    .join("|");
}

/** Each shop variant paired with the catalog variant of the same option values (or none). */
export function pairByOptions<
  S extends { options: { value: string }[] },
  C extends { key: string },
>(shop: S[], catalog: C[]): { shop: S; catalog: C | null }[] {
  const byKey = new Map<string, C>();
  for (const c of catalog) {
    const k = optionKey([c.key]);
    if (k && !byKey.has(k)) byKey.set(k, c);
  }
  return shop.map((s) => ({
    shop: s,
    catalog: byKey.get(optionKey(s.options.map((o) => o.value))) ?? null,
  }));
}
