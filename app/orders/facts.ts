/**
 * What the orders list shows and searches besides the pipeline's own columns: the customer's
 * name and email and the shop order's total, read from the order webhook. Shopify leaves the
 * name and email out of the payload when the app lacks protected customer data access: then
 * they stay empty and the list says so. customers/redact clears them.
 */
const text = (v: unknown, max: number): string | null => {
  if (typeof v !== "string") return null;
  const t = v.replace(/\s+/g, " ").trim();
  return t ? t.slice(0, max) : null;
};

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === "object" ? (v as Rec) : {});

export interface OrderFacts {
  customerName: string | null;
  customerEmail: string | null;
  shopTotal: string | null;
}

export function orderFacts(payload: unknown): OrderFacts {
  const p = rec(payload);
  const customer = rec(p.customer);
  const fullName = [text(customer.first_name, 100), text(customer.last_name, 100)]
    .filter(Boolean)
    .join(" ");
  const customerName =
    text(fullName, 200) ??
    text(rec(p.shipping_address).name, 200) ??
    text(rec(p.billing_address).name, 200);
  const email = text(p.email, 254) ?? text(p.contact_email, 254) ?? text(customer.email, 254);
  const total = typeof p.total_price === "number" ? String(p.total_price) : p.total_price;
  return {
    customerName,
    customerEmail: email && /^[^\s@]+@[^\s@]+$/.test(email) ? email.toLowerCase() : null,
    shopTotal: typeof total === "string" && /^\d{1,12}(\.\d{1,4})?$/.test(total) ? total : null,
  };
}
