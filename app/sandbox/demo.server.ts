/**
 * The sandbox's two demo buttons. They drive the simulators through their admin APIs, the way
 * a customer and a carrier would act on the real systems:
 * - "Place a test customer order": the shop simulator creates an order and sends the app its
 *   orders/create and orders/paid webhooks (signed like Shopify's);
 * - "Ship it": the service simulator ships the order, which sends the app the LOGISTIC and
 *   ORDER webhooks.
 * Both refuse to run outside the sandbox.
 */
import type { PrismaClient } from "@prisma/client";
import { config } from "../config.server";
import { shopifyNumericId } from "../orders/product-links.server";
import { sandboxEnabled } from "./auth.server";

export class SandboxDemoError extends Error {}

function need(url: string | undefined, what: string): string {
  if (!sandboxEnabled()) throw new SandboxDemoError("Only in the sandbox");
  if (!url) throw new SandboxDemoError(`The sandbox has no ${what} address`);
  return url.replace(/\/$/, "");
}

async function simCall(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await r.text();
  if (!r.ok) throw new SandboxDemoError(`Simulator answered ${r.status}: ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

interface SimProduct {
  title: string;
  variants: { id: string; legacyId: number; sku: string }[];
}

/** Places an order of one or two connected variants (any variants if none is connected). */
export async function placeTestOrder(db: PrismaClient, shop: string): Promise<string> {
  const sim = need(config.SANDBOX_SHOP_SIM_URL, "shop simulator");
  const base = `${sim}/__sim/shops/${encodeURIComponent(shop)}`;
  const products = (await (await fetch(`${base}/products`)).json()) as SimProduct[];
  const variants = products.flatMap((p) => p.variants);
  const connected = new Set(
    (
      await db.productConnection.findMany({
        where: { shopDomain: shop },
        select: { shopifyVariantId: true },
      })
    ).map((c) => c.shopifyVariantId),
  );
  const pool = variants.filter((v) => connected.has(shopifyNumericId(v.id)));
  const from = pool.length > 0 ? pool : variants;
  if (from.length === 0) throw new SandboxDemoError("The demo shop has no products");
  const seq = (await db.shopOrder.count({ where: { shopDomain: shop } })) + 1;
  const picks = [...new Set([from[seq % from.length]!, from[(seq * 7 + 3) % from.length]!])];
  const order = (await simCall(`${base}/orders`, {
    lines: picks.map((v, i) => ({ variantId: v.id, quantity: i + 1 })),
    email: "customer@example.com",
    shippingAddress: {
      firstName: "Ada",
      lastName: "Lovelace",
      address1: "12 Analytical Way",
      city: "Austin",
      province: "Texas",
      provinceCode: "TX",
      zip: "73301",
      country: "United States",
      countryCode: "US",
      phone: "+15125550100",
    },
  })) as { id: string; name: string };
  for (const topic of ["orders/create", "orders/paid"]) {
    const r = (await simCall(`${base}/webhooks`, { topic, orderId: order.id })) as {
      status: number;
    };
    if (r.status !== 200) throw new SandboxDemoError(`The app answered ${topic} with ${r.status}`);
  }
  return order.name;
}

/**
 * placeTestOrder, once per form key: a repeat of the same submit (a double click that got
 * through) gets the first one's order. The sandbox is one process, so memory is enough.
 */
const placing = new Map<string, Promise<string>>();
export function placeTestOrderOnce(db: PrismaClient, shop: string, key: string): Promise<string> {
  if (!/^[\w-]{8,64}$/.test(key)) return placeTestOrder(db, shop);
  const id = `${shop}:${key}`;
  let p = placing.get(id);
  if (!p) {
    p = placeTestOrder(db, shop);
    placing.set(id, p);
    // A failed attempt may be tried again with the same form.
    p.catch(() => placing.delete(id));
    if (placing.size > 1000) placing.delete(placing.keys().next().value!);
  }
  return p;
}

/**
 * A carrier-like tracking number in the UPU S10 shape (two letters, eight digits and a check
 * digit, the origin country): what a real carrier would hand the warehouse.
 */
export function carrierLikeTrackNumber(random: () => number = Math.random): string {
  const digits = Array.from({ length: 8 }, () => Math.floor(random() * 10));
  const weights = [8, 6, 4, 2, 3, 5, 9, 7];
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i]!, 0);
  const check = 11 - (sum % 11);
  const checkDigit = check === 10 ? 0 : check === 11 ? 5 : check;
  return `LX${digits.join("")}${checkDigit}CN`;
}

/**
 * Ships the order's service order at the service simulator under a new carrier-like number,
 * also when the order already has one (the sandbox's SBX- test number, or an earlier "Ship it"):
 * the service then sends its LOGISTIC webhook and the new number replaces the old in the shop.
 */
export async function shipTestOrder(db: PrismaClient, shop: string, orderId: string) {
  const svc = need(config.SVC_BASE_URL, "service simulator");
  const order = await db.shopOrder.findFirst({ where: { id: orderId, shopDomain: shop } });
  if (!order) throw new SandboxDemoError("Order not found");
  if (!order.svcOrderId) throw new SandboxDemoError("The order is not at the service yet");
  if (!["PAID", "SHIPPED", "FULFILLED"].includes(order.state)) {
    throw new SandboxDemoError(`The order is ${order.state}: only a paid order can ship`);
  }
  await simCall(`${svc}/__sim/orders/${encodeURIComponent(order.svcOrderId)}/ship`, {
    trackNumber: carrierLikeTrackNumber(),
  });
}
