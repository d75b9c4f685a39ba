/**
 * The fulfilment-service simulator: an HTTP server that behaves like the service of
 * /work/shared/spec (see README.md in this folder). Start one per test file:
 *
 *   const sim = await startServiceSim();
 *   const { apiKey } = sim.createAccount({ balance: "100.00" });
 *   // point the client at `${sim.url}` and call `${sim.url}/api2.0/v1/...`
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { handleAdmin } from "./admin";
import { createAccount, type CreateAccountOptions } from "./auth";
import { buildCatalog } from "./catalog";
import { createClock, type SimClock } from "./clock";
import { upsertConnection } from "./connections";
import type { SimRuntime } from "./context";
import { Faults, type FaultConfig } from "./faults";
import { serveFile } from "./files";
import { formatMoney, parseMoney } from "./money";
import {
  connectPendingOrders,
  deliverOrder,
  endOrder,
  parcelTrouble,
  shipOrder,
  type ShipOptions,
} from "./orders";
import { payInConsole } from "./payment";
import { RateLimiter } from "./ratelimit";
import { ROUTES } from "./routes";
import { handleApi, sendJson } from "./server";
import { createState, findOrder, type CallRecord, type SimOrder, type SimState } from "./state";
import { WebhookDispatcher } from "./webhooks";
import type { Json } from "./validate";
import { setDisputeStatus } from "./disputes";

export type { SimOrder, SimOrderLine, OrderStatus } from "./state";
export type { FaultConfig } from "./faults";
export { signBody } from "./webhooks";
export { Codes } from "./envelope";

/** Operation names as they appear in `calls()` and in `setFaults({ ops })`. */
export const OPERATIONS: readonly string[] = ROUTES.map((r) => r.op);

export interface ServiceSimOptions {
  port?: number; // default 0 (random), host 127.0.0.1
  latencyMs?: number; // added to every API call, default 0
  allowLoopbackWebhooks?: boolean; // default false: webhook/set rejects local/loopback hosts with 1607001
  /**
   * Default false: uploadFile refuses loopback sources and non-default ports, as the live
   * service does. True lets a test's server on 127.0.0.1 stand for a public host.
   */
  allowLoopbackUploads?: boolean;
  catalogSize?: number; // default 300 products, deterministic (seeded), each with variants
  enforceRateLimits?: boolean; // default true
  /** Minimum interval between getAccessToken calls of one account (default 5 minutes). */
  getAccessTokenIntervalMs?: number;
  /** Catalog seed (default fixed). */
  seed?: number;
}

export interface ServiceSim {
  url: string;
  clock: SimClock;
  createAccount(opts?: CreateAccountOptions): { accountId: string; apiKey: string; openId: string };
  setBalance(accountId: string, amount: string): void;
  getBalance(accountId: string): string;
  /** Restricts (or allows again) balance payment: payBalanceV2 then answers 1604001. */
  setPaymentRestricted(accountId: string, restricted: boolean): void;
  setRateLimits(
    accountId: string,
    limits: { callsPerSecond?: number; queryCallsPerSecond?: number },
  ): void;
  setLatency(ms: number): void;
  /** Suspends a shipping method (or lifts it): see SimState.suspendedLogistics. */
  suspendLogistics(name: string, suspended?: boolean): void;
  setFaults(f: FaultConfig): void;
  clearFaults(): void;
  calls(filter?: { op?: string; accountId?: string }): CallRecord[];
  orders(filter?: { accountId?: string }): SimOrder[];
  order(idOrNumber: string): SimOrder | undefined;
  connectShopProduct(
    accountId: string,
    storeProductId: string,
    storeVariantId: string,
    catalogVid: string,
  ): void;
  /**
   * The supplier changes a catalog variant: stock per country (STOCK UPDATE), price (VARIANT
   * UPDATE) or removal (VARIANT DELETE); every account subscribed to the section is told.
   */
  changeVariant(
    vid: string,
    change: { inventory?: Record<string, number>; sellPrice?: string; removed?: boolean },
  ): void;
  /** The supplier removes a whole product (PRODUCT DELETE to every subscribed account). */
  removeProduct(pid: string): void;
  ship(orderId: string, opts?: ShipOptions): void;
  deliver(orderId: string): void;
  /** After payment the service cancels (refunds) or closes the order; ORDER UPDATE sent. */
  endOrder(orderId: string, status: "CANCELLED" | "CLOSED"): void;
  /** The parcel is reported abnormal (13) or returned (14); LOGISTIC UPDATE sent. */
  parcelTrouble(orderId: string, trackingStatus: 13 | 14): void;
  /** The merchant pays the parent order holding this order in the service's console. */
  payInConsole(orderId: string): void;
  setDisputeStatus(disputeId: string, status: number, supportMessage?: string): void;
  /** Moves a dispute's creation (and update) time, e.g. to 200 days ago. */
  backdateDispute(disputeId: string, createdAt: number): void;
  /**
   * The service's proof-of-delivery and photo links stop answering (403, as an expired signed
   * link) or answer again. uploadFile's copies never expire.
   */
  expireFileLinks(expired?: boolean): void;
  /** Every address uploadFile downloaded, in order (after redirects). */
  uploadFetches(): string[];
  deliverPendingWebhooks(): Promise<void>;
  webhookDeliveries(): Array<{
    messageId: string;
    type: string;
    url: string;
    attempts: number;
    delivered: boolean;
    body: unknown;
    messageType: string;
    dropped: boolean;
    gaveUp: boolean;
    accountId: string;
  }>;
  /** Internal state, for the admin API and unusual assertions. */
  readonly state: SimState;
  close(): Promise<void>;
}

export async function startServiceSim(opts: ServiceSimOptions = {}): Promise<ServiceSim> {
  const clock = createClock();
  const state = createState(clock, buildCatalog(opts.catalogSize ?? 300, opts.seed));
  const faults = new Faults();
  const webhooks = new WebhookDispatcher(state, clock, faults);
  let latencyMs = opts.latencyMs ?? 0;
  let baseUrl = "";
  const rt: SimRuntime = {
    state,
    webhooks,
    limiter: new RateLimiter(clock),
    baseUrl: () => baseUrl,
    options: {
      allowLoopbackWebhooks: opts.allowLoopbackWebhooks ?? false,
      allowLoopbackUploads: opts.allowLoopbackUploads ?? false,
      enforceRateLimits: opts.enforceRateLimits ?? true,
      getAccessTokenIntervalMs: opts.getAccessTokenIntervalMs ?? 5 * 60_000,
    },
  };

  const account = (id: string) => {
    const a = state.accounts.get(id);
    if (!a) throw new Error(`account ${id} not found`);
    return a;
  };
  const orderOrThrow = (id: string) => {
    const o = findOrder(state, id);
    if (!o) throw new Error(`order ${id} not found`);
    return o;
  };

  const sim: ServiceSim = {
    url: "",
    clock,
    state,
    createAccount(o) {
      const a = createAccount(state, o);
      return { accountId: a.accountId, apiKey: a.apiKey ?? "", openId: a.openId };
    },
    setBalance(id, amount) {
      account(id).balance = parseMoney(amount);
    },
    getBalance: (id) => formatMoney(account(id).balance),
    setPaymentRestricted(id, restricted) {
      account(id).paymentRestricted = restricted;
    },
    setRateLimits(id, limits) {
      const a = account(id);
      if (limits.callsPerSecond !== undefined) a.callsPerSecond = limits.callsPerSecond;
      if (limits.queryCallsPerSecond !== undefined)
        a.queryCallsPerSecond = limits.queryCallsPerSecond;
    },
    suspendLogistics(name, suspended = true) {
      const key = name.trim().toLowerCase();
      if (suspended) state.suspendedLogistics.add(key);
      else state.suspendedLogistics.delete(key);
    },
    setLatency(ms) {
      latencyMs = Math.max(0, ms);
    },
    setFaults: (f) => faults.set(f),
    clearFaults: () => faults.clear(),
    calls: (f = {}) =>
      state.calls.filter(
        (c) => (!f.op || c.op === f.op) && (!f.accountId || c.accountId === f.accountId),
      ),
    orders: (f = {}) =>
      [...state.orders.values()].filter((o) => !f.accountId || o.accountId === f.accountId),
    order: (id) => findOrder(state, id),
    connectShopProduct(accountId, storeProductId, storeVariantId, catalogVid) {
      const a = account(accountId);
      const v = state.catalog.variantByVid.get(catalogVid);
      if (!v) throw new Error(`catalog variant ${catalogVid} not found`);
      upsertConnection(rt, a, {
        shopId: a.shopId,
        platformProductId: storeProductId,
        platformVariantId: storeVariantId,
        svcProductId: v.pid,
        svcVariantId: v.vid,
        defaultArea: 1,
        logistics: "SvcPacket Ordinary",
      });
      connectPendingOrders(rt, a);
    },
    changeVariant(vid, change) {
      const v = state.catalog.variantByVid.get(vid);
      if (!v) throw new Error(`catalog variant ${vid} not found`);
      const everyone = (type: "STOCK" | "VARIANT", messageType: string, params: Json) => {
        for (const a of state.accounts.values()) rt.webhooks.emit(a, type, messageType, params);
      };
      if (change.inventory) {
        for (const [country, n] of Object.entries(change.inventory)) v.inventory[country] = n;
        everyone("STOCK", "UPDATE", {
          pid: v.pid,
          vid: v.vid,
          variantSku: v.sku,
          inventories: Object.entries(v.inventory).map(([countryCode, totalInventory]) => ({
            countryCode,
            totalInventory,
          })),
        });
      }
      if (change.sellPrice !== undefined) {
        v.sellPrice = parseMoney(change.sellPrice);
        everyone("VARIANT", "UPDATE", {
          pid: v.pid,
          vid: v.vid,
          variantSku: v.sku,
          variantSellPrice: Number(change.sellPrice),
        });
      }
      if (change.removed) {
        v.removed = true;
        everyone("VARIANT", "DELETE", { pid: v.pid, vid: v.vid, variantSku: v.sku });
      }
    },
    removeProduct(pid) {
      const p = state.catalog.byPid.get(pid);
      if (!p) throw new Error(`catalog product ${pid} not found`);
      p.removed = true;
      for (const a of state.accounts.values())
        rt.webhooks.emit(a, "PRODUCT", "DELETE", { pid: p.pid, productSku: p.sku });
    },
    ship: (id, o) => shipOrder(rt, orderOrThrow(id), o),
    deliver: (id) => deliverOrder(rt, orderOrThrow(id)),
    endOrder: (id, status) => endOrder(rt, orderOrThrow(id), status),
    parcelTrouble: (id, status) => parcelTrouble(rt, orderOrThrow(id), status),
    payInConsole: (id) => payInConsole(rt, orderOrThrow(id)),
    setDisputeStatus: (id, status, msg) => setDisputeStatus(state, id, status, msg),
    backdateDispute(disputeId, createdAt) {
      const d = state.disputes.get(disputeId);
      if (!d) throw new Error(`dispute ${disputeId} not found`);
      d.createdAt = createdAt;
      d.updatedAt = createdAt;
      for (const m of d.messages) m.createDate = createdAt;
    },
    expireFileLinks(expired = true) {
      state.files.expired = expired;
    },
    uploadFetches: () => [...state.files.fetched],
    deliverPendingWebhooks: () => webhooks.deliverPending(),
    webhookDeliveries: () =>
      webhooks.deliveries.map((d) => ({
        messageId: d.messageId,
        type: d.type,
        messageType: d.messageType,
        url: d.url,
        attempts: d.attempts,
        delivered: d.delivered,
        dropped: d.dropped,
        gaveUp: d.gaveUp,
        accountId: d.accountId,
        body: d.body,
      })),
    async close() {
      webhooks.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };

  const front = { rt, faults, latencyMs: () => latencyMs };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://sim.local");
    if (url.pathname.startsWith("/__files/") && req.method === "GET") {
      serveFile(state.files, res, decodeURIComponent(url.pathname.slice("/__files/".length)));
      return;
    }
    const run =
      url.pathname.startsWith("/__sim/") || url.pathname === "/__sim"
        ? handleAdmin(sim, faults, req, res, url)
        : handleApi(front, req, res, url);
    run.catch((e: unknown) => {
      console.error("[service-sim] request failed:", e);
      sendJson(res, 500, { error: e instanceof Error ? e.message : String(e) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  sim.url = baseUrl;
  webhooks.start();
  return sim;
}
