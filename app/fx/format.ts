/**
 * How the order page words money in two currencies (issue 14): the service's cost in USD, the
 * shop's prices in the shop's currency, each labelled, never added together; and the rate that
 * turned one into the other. Plain functions (no server code): the page renders them.
 */
import { addMoney, multiplyMoney } from "../svc/decimal";

export interface RateFacts {
  currency: string | null;
  fxRate: string | null;
  fxSource: string | null;
}

/** "1 EUR = 1.0812 USD, ECB 2026-11-23"; what was used, or why nothing was. */
export function rateText(o: RateFacts): string {
  const currency = o.currency ?? "";
  if (o.fxRate) {
    const source = o.fxSource === "merchant" ? "your rate in Settings" : (o.fxSource ?? "");
    return `1 ${currency} = ${o.fxRate} USD${source ? `, ${source}` : ""}`;
  }
  if (currency === "USD") return "none needed (the shop sells in USD)";
  return "none used yet";
}

/** The shop's lines at the shop's prices (unit price × quantity, summed exactly). */
export function itemsTotal(lines: Array<{ unitPrice: string; quantity: number }>): string {
  return addMoney(...lines.map((l) => multiplyMoney(l.unitPrice, l.quantity)));
}
