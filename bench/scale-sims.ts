/**
 * The simulators of `bench:scale`, in a process of their own so that their CPU and memory are
 * not the app's: one service simulator (every shop's account, at the contract's rates) and one
 * shop simulator (every shop, each with Shopify's per-shop GraphQL throttle), driven through a
 * small control API on loopback. Prints one JSON line with the addresses when ready.
 *
 * Environment: SCALE_APP_URL (where webhooks go), SCALE_API_SECRET (the app's Shopify secret:
 * order webhooks are signed with it), SCALE_LATENCY_MS (added to every service call).
 *
 * Control API (JSON bodies):
 *   POST /setup   {shops, calls, queryCalls, restoreRate, balance}  → the shops and accounts
 *   POST /orders  {rate, perShop, duplicateRate}  → places orders and sends their signed
 *                 orders/paid webhooks, round-robin over the shops, open loop at `rate` per second
 *   POST /ship    {orderIds}  → ships those service orders (LOGISTIC webhooks go out at once)
 *   POST /pay-in-console {orderIds}  → pays their parent orders as the merchant would, by hand
 *   POST /faults  FaultConfig (the service simulator's) | {}  → sets or clears faults
 *   GET  /stats   → calls, refusals, duplicates, spend, fulfilments with tracking
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startServiceSim } from "../test/sim/service/index";
import type { FaultConfig } from "../test/sim/service/faults";
import { startShopSim } from "../test/sim/shop/server";

const APP_URL = process.env.SCALE_APP_URL!;
const API_SECRET = process.env.SCALE_API_SECRET!;
const svc = await startServiceSim({
  allowLoopbackWebhooks: true,
  latencyMs: Number(process.env.SCALE_LATENCY_MS ?? "20"),
});
const shopSim = await startShopSim({ appUrl: APP_URL, apiSecret: API_SECRET });

interface BenchShop {
  domain: string;
  accessToken: string;
  apiKey: string;
  openId: string;
  simAccountId: string;
  webhookSecret: string;
  productId: string;
  variantId: string;
  variantGid: string;
  sku: string;
  vid: string;
}
const shops: BenchShop[] = [];
/** Shop order gid → its shop, for the fulfilment count. */
const placed: { domain: string; orderId: string }[] = [];
let shopWebhooksDuplicated = 0;
let shopWebhooksRefused = 0;
const startBalance = "1000000.00";

function setup(o: {
  shops: number;
  calls: number;
  queryCalls: number;
  restoreRate: number;
}): BenchShop[] {
  const vids = [...svc.state.catalog.variantByVid.values()].filter((v) => !v.removed);
  for (let i = 0; i < o.shops; i++) {
    const domain = `scale-${i}.myshopify.com`;
    const { accessToken } = shopSim.addShop(domain);
    shopSim.setThrottle(domain, {
      maximumAvailable: o.restoreRate * 20,
      restoreRate: o.restoreRate,
    });
    const account = svc.createAccount({
      balance: startBalance,
      callsPerSecond: o.calls,
      queryCallsPerSecond: o.queryCalls,
    });
    // What the app's connect step registers (webhook/set), set directly: the run measures
    // orders, not set-up calls.
    const webhookSecret = randomBytes(24).toString("base64url");
    const hook = `${APP_URL}/webhooks/svc/${webhookSecret}`;
    const rec = svc.state.accounts.get(account.accountId)!;
    for (const section of ["order", "logistics"] as const)
      rec.webhooks[section] = { type: "ENABLE", callbackUrls: [hook] };
    const vid = vids[i % vids.length]!.vid;
    const sku = `SCALE-${i}`;
    const product = shopSim.addProduct(domain, {
      title: `Scale Tee ${i}`,
      optionNames: ["Size"],
      variants: [{ sku, price: "25.00", options: ["M"] }],
    });
    const variant = product.variants[0]!;
    svc.connectShopProduct(
      account.accountId,
      String(product.legacyId),
      String(variant.legacyId),
      vid,
    );
    shops.push({
      domain,
      accessToken,
      apiKey: account.apiKey,
      openId: account.openId,
      simAccountId: account.accountId,
      webhookSecret,
      productId: String(product.legacyId),
      variantId: String(variant.legacyId),
      variantGid: variant.id,
      sku,
      vid,
    });
  }
  return shops;
}

async function placeOrders(o: { rate: number; perShop: number; duplicateRate?: number }) {
  const total = o.perShop * shops.length;
  const started = Date.now();
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / o.rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const shop = shops[n % shops.length]!;
    const order = shopSim.placeOrder(shop.domain, {
      lines: [{ variantId: shop.variantGid, quantity: 1 }],
    });
    placed.push({ domain: shop.domain, orderId: order.id });
    const send = async () => {
      const payload = shopSim.orderWebhookPayload(shop.domain, order.id);
      const eventId = randomBytes(12).toString("hex");
      const copies = Math.random() < (o.duplicateRate ?? 0) ? 2 : 1;
      for (let c = 0; c < copies; c++) {
        if (c > 0) shopWebhooksDuplicated++;
        // Shopify retries a webhook that is not answered 200 (up to 8 times over 4 hours).
        for (let attempt = 0; attempt < 8; attempt++) {
          let why = "";
          const res = await shopSim
            .sendWebhook(shop.domain, "orders/paid", payload, { eventId })
            .catch((e: unknown) => {
              why = String((e as { cause?: unknown }).cause ?? e);
              return null;
            });
          if (res?.status === 200) break;
          shopWebhooksRefused++;
          if (shopWebhooksRefused <= 3 || shopWebhooksRefused % 500 === 0) {
            console.error(
              `[sims] webhook refused (${res?.status ?? why}), ${shopWebhooksRefused} so far`,
            );
          }
          await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
        }
      }
    };
    const p = send().finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { sent: total, seconds: (Date.now() - started) / 1000 };
}

function stats() {
  const calls = svc.calls();
  const byOp: Record<string, number> = {};
  const limited: Record<string, number> = {};
  for (const c of calls) {
    byOp[c.op] = (byOp[c.op] ?? 0) + 1;
    if (c.httpStatus === 429 || c.code === 1600200) limited[c.op] = (limited[c.op] ?? 0) + 1;
  }
  let duplicateOrders = 0;
  let spentCents = 0;
  const spentByShop: Record<string, number> = {};
  for (const s of shops) {
    const byNumber = new Map<string, number>();
    for (const o of svc.orders({ accountId: s.simAccountId }))
      byNumber.set(o.orderNumber, (byNumber.get(o.orderNumber) ?? 0) + 1);
    duplicateOrders += [...byNumber.values()].filter((n) => n > 1).length;
    const spent =
      Math.round(Number(startBalance) * 100) -
      Math.round(Number(svc.getBalance(s.simAccountId)) * 100);
    spentByShop[s.domain] = spent;
    spentCents += spent;
  }
  let trackingWritten = 0;
  let fulfilments = 0;
  for (const p of placed) {
    const fs = shopSim.fulfillments(p.domain, p.orderId);
    fulfilments += fs.length;
    trackingWritten += fs.filter((f) => f.tracking[0]?.number).length;
  }
  const gql = shopSim.graphqlCalls();
  return {
    svc_calls_by_op: byOp,
    svc_rate_limited: limited,
    duplicate_orders: duplicateOrders,
    spent_cents_by_shop: spentByShop,
    spent_cents: spentCents,
    fulfilments,
    tracking_written: trackingWritten,
    shop_orders: placed.length,
    shop_webhooks_duplicated: shopWebhooksDuplicated,
    shop_webhooks_refused: shopWebhooksRefused,
    shopify_calls: gql.length,
    shopify_throttled: gql.filter(
      (c) => c.requestedQueryCost !== null && c.actualQueryCost === null,
    ).length,
    shopify_actual_cost: gql.reduce((n, c) => n + (c.actualQueryCost ?? 0), 0),
  };
}

const control = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    void (async () => {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
      let out: unknown;
      if (req.url === "/setup") out = setup(body);
      else if (req.url === "/orders") out = await placeOrders(body);
      else if (req.url === "/ship") {
        const shippedAt: Record<string, number> = {};
        for (const id of body.orderIds as string[]) {
          svc.ship(id, { trackNumber: `SC-${id}` });
          shippedAt[id] = Date.now();
        }
        out = { shippedAt };
      } else if (req.url === "/pay-in-console") {
        // The merchant pays, in the service's console, the parent orders of these orders.
        const parents = new Set<string>();
        for (const id of body.orderIds as string[]) {
          const parent = svc.order(id)?.shipmentOrderId;
          if (!parent || parents.has(parent)) continue;
          svc.payInConsole(id);
          parents.add(parent);
        }
        out = { paid: parents.size };
      } else if (req.url === "/faults") {
        if (Object.keys(body).length === 0) svc.clearFaults();
        else svc.setFaults(body as FaultConfig);
        out = { ok: true };
      } else if (req.url === "/stats") out = stats();
      else {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(out));
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
});
await new Promise<void>((r) => control.listen(0, "127.0.0.1", r));
const port = (control.address() as AddressInfo).port;
console.log(
  JSON.stringify({ control: `http://127.0.0.1:${port}`, svc: svc.url, shop: shopSim.url }),
);
process.on("SIGTERM", () => {
  void Promise.all([svc.close(), shopSim.close()]).finally(() => process.exit(0));
});
