/**
 * End-to-end harness of the order pipeline over real HTTP:
 *
 *   shop simulator ──orders/* webhooks (HMAC)──▶ app routes (a node:http server around the
 *   Remix actions) ──jobs──▶ pipeline ──▶ service simulator ──ORDER/LOGISTIC webhooks (sign)──▶
 *   app route /webhooks/svc/<secret> ──jobs──▶ pipeline ──Admin GraphQL (library)──▶ shop sim
 */
import { randomBytes } from "node:crypto";
import { type IncomingMessage, createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ActionFunctionArgs } from "@remix-run/node";
import { Session } from "@shopify/shopify-api";
import { prisma } from "../../app/db.server";
import { fulfilmentHandlers } from "../../app/fulfilment/handlers.server";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { handlers } from "../../app/worker/registry.server";
import { catalogHandlers } from "../../app/catalog/jobs.server";
import { eventHandlers } from "../../app/worker/events.server";
import { everySection } from "../../app/svc/events";
import { Worker } from "../../app/worker/worker.server";
import { action as ordersCancelled } from "../../app/routes/webhooks.orders.cancelled";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as ordersPaid } from "../../app/routes/webhooks.orders.paid";
import { action as ordersUpdated } from "../../app/routes/webhooks.orders.updated";
import { action as svcWebhook } from "../../app/routes/webhooks.svc.$secret";
import { updateSettings } from "../../app/settings.server";
import { shopGatewayFor } from "../../app/shop/index.server";
import { sessionStorage } from "../../app/shopify.server";
import { svcClientForAccount, type SvcClient } from "../../app/svc/client.server";
import { saveApiKeyAccount } from "../../app/svc/tokens.server";
import { webhookSecretColumns } from "../../app/svc/webhook-secret.server";
import { callRoute } from "../helpers/remix";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import { type ShopifyRoute, routeShopifyToSim } from "../sim/shop/route-shopify";
import { type ShopSim, type SimProduct, startShopSim } from "../sim/shop/server";

export { prisma };

/** Shop domain → the URL of its shop simulator, for every harness of this process. */
const shopSims = new Map<string, string>();

const shopRoutes: Record<string, (args: ActionFunctionArgs) => unknown> = {
  "/webhooks/orders/create": ordersCreate,
  "/webhooks/orders/paid": ordersPaid,
  "/webhooks/orders/cancelled": ordersCancelled,
  "/webhooks/orders/updated": ordersUpdated,
};

async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  return new Request(new URL(req.url ?? "/", base), {
    method: req.method,
    headers,
    body: req.method === "GET" ? undefined : Buffer.concat(chunks),
  });
}

export interface Harness {
  svc: ServiceSim;
  shop: ShopSim;
  appUrl: string;
  shopDomain: string;
  accountId: string;
  simAccountId: string;
  deps: FulfilmentDeps;
  worker: Worker;
  client: SvcClient;
  /** Runs due jobs and the service's pending webhook deliveries until nothing moves. */
  settle(maxRounds?: number): Promise<number>;
  /** A shop product connected (app row + service connection) to a catalog variant. */
  connectedProduct(title: string, price?: string): Promise<SimProduct>;
  unconnectedProduct(title: string, price?: string): SimProduct;
  connect(p: SimProduct): Promise<void>;
  /** Places an order in the shop and posts its webhook to the app's route. */
  order(
    lines: { product: SimProduct; quantity: number; location?: string; variant?: number }[],
    opts?: { topic?: string; risk?: "LOW" | "MEDIUM" | "HIGH"; fulfillAt?: string },
  ): Promise<{ shopOrderId: string; legacyId: number; lineIds: string[] }>;
  row(legacyId: number): ReturnType<typeof findRow>;
  close(): Promise<void>;
}

const findRow = (shopDomain: string, legacyId: number) =>
  prisma.shopOrder.findUniqueOrThrow({
    where: { shopDomain_shopifyOrderId: { shopDomain, shopifyOrderId: String(legacyId) } },
    include: { lines: true, shipments: true, timeline: { orderBy: { id: "asc" } } },
  });

/**
 * The pipeline's dependencies as the harness wires them: service clients with the harness's
 * time-out, retries and rate margin, the shop gateway of the offline session, and `now` (the
 * service simulator's clock in-process; a worker process of the chaos bench passes Date.now).
 */
export function harnessDeps(o: { now: () => number; clientTimeoutMs?: number }): FulfilmentDeps {
  const clock = {
    now: o.now,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms))),
  };
  const svcFor = (accountId: string) =>
    svcClientForAccount(accountId, {
      prisma,
      clock,
      timeoutMs: o.clientTimeoutMs ?? 5_000,
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100 },
      retrySleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      // 30 ms of departure-to-arrival jitter (one process runs the app, both simulators and the
      // bench): with 5 ms (and 20) a busy event loop drew 1600200 replies, each pausing and
      // slowing its bucket. Costs 3% of the limit at 10 calls/s.
      rateMarginMs: 30,
    });
  return {
    prisma,
    svcFor,
    shopFor: (d) => shopGatewayFor(d),
    clock,
    options: { balanceRecheckMs: 60_000 },
  };
}

export async function startHarness(opts: {
  shopDomain: string;
  balance?: string;
  settings?: Record<string, unknown>;
  clientTimeoutMs?: number;
  callsPerSecond?: number;
  latencyMs?: number;
  workerConcurrency?: number;
  /**
   * A service simulator to share (several shops' accounts at one service, as in production,
   * so order ids never repeat across shops); default: a new one, closed by close().
   */
  svc?: ServiceSim;
  /** Sees every request the app server receives (path and raw body), before it is handled. */
  onAppRequest?: (path: string, body: string) => void;
  /**
   * The shop's Admin API restore rate, by its plan (points per second; the bucket holds 20
   * seconds of it). Default: the simulator's Standard plan (100).
   */
  shopifyRestoreRate?: number;
}): Promise<Harness> {
  const svc =
    opts.svc ?? (await startServiceSim({ allowLoopbackWebhooks: true, latencyMs: opts.latencyMs }));
  const cps = opts.callsPerSecond ?? 50;
  const webhookSecret = randomBytes(24).toString("base64url");

  const app: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    void (async () => {
      const request = await toRequest(req, "https://app.test");
      if (opts.onAppRequest) opts.onAppRequest(path, await request.clone().text());
      let response: Response;
      const svcMatch = /^\/webhooks\/svc\/([^/]+)$/.exec(path);
      if (svcMatch) response = await callRoute(svcWebhook, request, { secret: svcMatch[1]! });
      else if (shopRoutes[path]) response = await callRoute(shopRoutes[path], request);
      else response = new Response("not found", { status: 404 });
      res.writeHead(response.status).end(await response.text());
    })().catch((e: unknown) => {
      console.error("app route failed", e);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
  const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;

  const shop = await startShopSim({ appUrl, apiSecret: "test-api-secret" });
  // Several harnesses in one process (the bench's --shops) share the one library fetch: each
  // shop's Admin calls go to that shop's simulator.
  shopSims.set(opts.shopDomain, shop.url);
  const route: ShopifyRoute = routeShopifyToSim(shop.url, { simFor: (h) => shopSims.get(h) });
  const { accessToken } = shop.addShop(opts.shopDomain);
  if (opts.shopifyRestoreRate) {
    const restoreRate = opts.shopifyRestoreRate;
    shop.setThrottle(opts.shopDomain, { maximumAvailable: restoreRate * 20, restoreRate });
  }
  await sessionStorage.storeSession(
    new Session({
      id: `offline_${opts.shopDomain}`,
      shop: opts.shopDomain,
      state: "state",
      isOnline: false,
      accessToken,
      scope: "read_orders,write_merchant_managed_fulfillment_orders",
    }),
  );
  await updateSettings(prisma, opts.shopDomain, {
    trigger: "orders/paid",
    logisticName: "SvcPacket Ordinary",
    fromCountryCode: "CN",
    payBatchWindowSeconds: 0,
    ...opts.settings,
  });

  const simAccount = svc.createAccount({
    balance: opts.balance ?? "1000.00",
    callsPerSecond: cps,
    queryCallsPerSecond: Math.max(2, cps),
  });
  const account = await saveApiKeyAccount(prisma, {
    baseUrl: svc.url,
    apiKey: simAccount.apiKey,
    shopDomain: opts.shopDomain,
    callsPerSecond: cps,
    queryCallsPerSecond: Math.max(2, cps),
  });
  await prisma.svcAccount.update({
    where: { id: account.id },
    data: { ...webhookSecretColumns(webhookSecret), openId: simAccount.openId },
  });
  const deps = harnessDeps({
    now: () => svc.clock.now(),
    clientTimeoutMs: opts.clientTimeoutMs,
  });
  const svcFor = deps.svcFor;
  const client = await svcFor(account.id);
  const hook = `${appUrl}/webhooks/svc/${webhookSecret}`;
  await client.webhooks.set(everySection({ type: "ENABLE", callbackUrls: [hook] }));

  const worker = new Worker({
    prisma,
    handlers: {
      ...handlers,
      ...eventHandlers(() => deps),
      ...fulfilmentHandlers(() => deps),
      ...catalogHandlers(() => deps),
    },
    concurrency: opts.workerConcurrency ?? 2,
    pollMs: 20,
  });

  const catalogVids = [...svc.state.catalog.variantByVid.values()]
    .filter((v) => !v.removed)
    .map((v) => v.vid);
  let nextVid = 0;
  let sku = 0;

  const h: Harness = {
    svc,
    shop,
    appUrl,
    shopDomain: opts.shopDomain,
    accountId: account.id,
    simAccountId: simAccount.accountId,
    deps,
    worker,
    client,
    async settle(maxRounds = 30) {
      let total = 0;
      for (let i = 0; i < maxRounds; i++) {
        await svc.deliverPendingWebhooks();
        const ran = await worker.drain();
        total += ran;
        if (ran === 0) {
          await svc.deliverPendingWebhooks();
          if ((await worker.drain()) === 0) break;
        }
      }
      return total;
    },
    unconnectedProduct(title, price = "25.00") {
      sku++;
      return shop.addProduct(opts.shopDomain, {
        title,
        image: `https://cdn.example.com/${sku}.png`,
        optionNames: ["Size", "Color"],
        variants: [{ sku: `SKU-${sku}`, price, options: ["M", "Blue"] }],
      });
    },
    async connect(p) {
      const vid = catalogVids[nextVid++ % catalogVids.length]!;
      const v = p.variants[0]!;
      await prisma.productConnection.create({
        data: {
          shopDomain: opts.shopDomain,
          shopifyProductId: String(p.legacyId),
          shopifyVariantId: String(v.legacyId),
          sku: v.sku,
          svcVid: vid,
        },
      });
      svc.connectShopProduct(simAccount.accountId, String(p.legacyId), String(v.legacyId), vid);
    },
    async connectedProduct(title, price) {
      const p = h.unconnectedProduct(title, price);
      await h.connect(p);
      return p;
    },
    async order(lines, o = {}) {
      const placed = shop.placeOrder(opts.shopDomain, {
        lines: lines.map((l) => ({
          variantId: l.product.variants[l.variant ?? 0]!.id,
          quantity: l.quantity,
          ...(l.location ? { location: l.location } : {}),
        })),
        risk: o.risk,
        ...(o.fulfillAt ? { fulfillAt: o.fulfillAt } : {}),
      });
      const res = await shop.sendWebhook(
        opts.shopDomain,
        o.topic ?? "orders/paid",
        shop.orderWebhookPayload(opts.shopDomain, placed.id),
      );
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
      return {
        shopOrderId: placed.id,
        legacyId: placed.legacyId,
        lineIds: placed.lineItems.map((l) => String(l.legacyId)),
      };
    },
    row: (legacyId) => findRow(opts.shopDomain, legacyId),
    async close() {
      shopSims.delete(opts.shopDomain);
      if (shopSims.size === 0) route.restore();
      await shop.close();
      if (!opts.svc) await svc.close();
      app.closeAllConnections();
      await new Promise((r) => app.close(r));
    },
  };
  return h;
}

/** Calls of an operation at the service simulator for this account. */
export const opCalls = (h: Harness, op: string) =>
  h.svc.calls({ op, accountId: h.simAccountId }).length;
