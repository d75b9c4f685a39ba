/**
 * Focused payment tests: `payAccount` called directly against the service simulator (real HTTP)
 * and the test database. Each shop gets its own service account, so the tests of a file do not
 * see one another's orders; a shop's `clock` is the pipeline's clock (the service client keeps
 * the simulator's), set by the test where the known balance's age or a wait matters.
 */
import type { PaymentBatch, ShopOrder } from "@prisma/client";
import { expect } from "vitest";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { type PayRunResult, payAccount } from "../../app/fulfilment/pay/index.server";
import { updateSettings } from "../../app/settings.server";
import type { SvcClient } from "../../app/svc/client.server";
import { toMoney } from "../../app/svc/decimal";
import { saveApiKeyAccount } from "../../app/svc/tokens.server";
import type { ServiceSim } from "../sim/service/index";
import { variants } from "../sim/service/test-helpers";
import { harnessDeps, prisma } from "./harness";

export { prisma };

let seq = 0;

export interface PayShop {
  shopDomain: string;
  accountId: string;
  simAccountId: string;
  deps: FulfilmentDeps;
  client: SvcClient;
  /** The pipeline's clock (ms); tests move it. */
  clock: { t: number };
  run(deps?: FulfilmentDeps): Promise<PayRunResult>;
}

/** A shop with its own service account holding `balance`, paying with the given settings. */
export async function payShop(
  svc: ServiceSim,
  o: {
    balance?: string;
    settings?: Record<string, unknown>;
    options?: FulfilmentDeps["options"];
    clientTimeoutMs?: number;
  } = {},
): Promise<PayShop> {
  const shopDomain = `pay-${++seq}-${Date.now().toString(36)}.myshopify.com`;
  const sim = svc.createAccount({
    balance: o.balance ?? "1000.00",
    callsPerSecond: 1000,
    queryCallsPerSecond: 1000,
  });
  const account = await saveApiKeyAccount(prisma, {
    baseUrl: svc.url,
    apiKey: sim.apiKey,
    shopDomain,
    callsPerSecond: 1000,
    queryCallsPerSecond: 1000,
  });
  await updateSettings(prisma, shopDomain, {
    payBatchWindowSeconds: 0,
    payBatchSize: 50,
    ...o.settings,
  });
  const base = harnessDeps({ now: () => svc.clock.now(), clientTimeoutMs: o.clientTimeoutMs });
  const clock = { t: Date.now() };
  const deps: FulfilmentDeps = {
    ...base,
    clock: { now: () => clock.t },
    options: { balanceRecheckMs: 60_000, ...o.options },
  };
  const client = await base.svcFor(account.id);
  return {
    shopDomain,
    accountId: account.id,
    simAccountId: sim.accountId,
    deps,
    client,
    clock,
    run: (d = deps) => payAccount(d, account.id),
  };
}

/** First catalog variants that are not removed (the same every run). */
const vids = (svc: ServiceSim) => variants(svc, 5).map((v) => v.vid);

/**
 * An order created at the service (createOrderV3 over HTTP) and its row in the app, CREATED and
 * waiting for payment unless `row` says otherwise. `country`/`address` steer the service's
 * interceptions at confirmation.
 */
export async function svcOrder(
  svc: ServiceSim,
  shop: PayShop,
  o: {
    sandbox?: boolean;
    country?: string;
    address?: string;
    quantity?: number;
    placedAt?: Date | null;
    row?: Partial<ShopOrder>;
  } = {},
): Promise<ShopOrder> {
  const n = ++seq;
  const orderNumber = `pay-${n}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await shop.client.orders.createOrderV3({
    orderNumber,
    shippingCountryCode: o.country ?? "US",
    shippingCountry: "Somewhere",
    shippingProvince: "CA",
    shippingCity: "Los Angeles",
    shippingCustomerName: "Jo Buyer",
    shippingAddress: o.address ?? "1 Main Street",
    shippingZip: "90001",
    logisticName: "USPS",
    fromCountryCode: "CN",
    isSandbox: o.sandbox ? 1 : 0,
    products: [{ vid: vids(svc)[n % 5]!, quantity: o.quantity ?? 1 }],
  });
  return row(shop, {
    orderNumber,
    svcOrderId: created.orderId!,
    amount: toMoney(created.orderAmount!),
    isSandbox: o.sandbox ?? false,
    placedAt: o.placedAt === undefined ? new Date(shop.clock.t - 1000) : o.placedAt,
    ...o.row,
  });
}

/** A row of the app only (no service order unless `svcOrderId` names one). */
export async function row(shop: PayShop, data: Partial<ShopOrder>): Promise<ShopOrder> {
  const n = ++seq;
  return prisma.shopOrder.create({
    data: {
      shopDomain: shop.shopDomain,
      shopifyOrderId: String(9000 + n),
      orderNumber: `row-${n}-${Math.random().toString(36).slice(2, 8)}`,
      svcAccountId: shop.accountId,
      state: "CREATED",
      ...data,
    } as Parameters<typeof prisma.shopOrder.create>[0]["data"],
  });
}

export const reload = (o: { id: string }) =>
  prisma.shopOrder.findUniqueOrThrow({
    where: { id: o.id },
    include: { timeline: { orderBy: { id: "asc" } } },
  });

export const reloadAll = (os: Array<{ id: string }>) => Promise.all(os.map(reload));

/** Calls of an operation at the simulator for this shop's account. */
export const calls = (svc: ServiceSim, shop: PayShop, op: string) =>
  svc.calls({ op, accountId: shop.simAccountId }).length;

export const cents = (s: string | null | undefined) => Math.round(Number(s ?? "0") * 100);
export const sumCents = (os: Array<{ amount: string | null }>) =>
  os.reduce((a, o) => a + cents(o.amount), 0);

/** The balance at the service, in cents. */
export const balanceCents = (svc: ServiceSim, shop: PayShop) =>
  cents(svc.getBalance(shop.simAccountId));

/**
 * Rows that must not change: a snapshot now, and a check later that every column (state,
 * batch, payId, reason, updatedAt…) is as it was and the service did not pay them.
 */
export async function bystanders(svc: ServiceSim, rows: ShopOrder[]) {
  const before = await prisma.shopOrder.findMany({
    where: { id: { in: rows.map((r) => r.id) } },
    orderBy: { id: "asc" },
  });
  const paidBefore = before.map((r) => (r.svcOrderId ? svc.order(r.svcOrderId)?.paid : undefined));
  return async () => {
    const after = await prisma.shopOrder.findMany({
      where: { id: { in: rows.map((r) => r.id) } },
      orderBy: { id: "asc" },
    });
    expect(after).toEqual(before);
    expect(after.map((r) => (r.svcOrderId ? svc.order(r.svcOrderId)?.paid : undefined))).toEqual(
      paidBefore,
    );
  };
}

/**
 * The pipeline's dependencies with one service operation (`orders.*` or `payment.*`) run through
 * `around`, which gets the real call: to crash before or after it, or to change its reply.
 */
export function aroundOp(
  deps: FulfilmentDeps,
  op: string,
  around: (call: () => Promise<unknown>) => Promise<unknown>,
): FulfilmentDeps {
  return {
    ...deps,
    async svcFor(accountId) {
      const real = await deps.svcFor(accountId);
      const wrap = <T extends object>(res: T): T =>
        new Proxy(res, {
          get(target, prop, receiver) {
            const v = Reflect.get(target, prop, receiver) as unknown;
            if (prop !== op || typeof v !== "function") return v;
            return (...args: unknown[]) =>
              around(() => (v as (...a: unknown[]) => Promise<unknown>).apply(target, args));
          },
        });
      return new Proxy(real, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          return prop === "orders" || prop === "payment" ? wrap(v as object) : v;
        },
      });
    },
  };
}

/**
 * A client that "crashes" right after `op` returned: the call had its effect at the service,
 * then the process dies before persisting anything (here: an error thrown out of the step).
 */
export const crashAfter = (deps: FulfilmentDeps, op: string) =>
  aroundOp(deps, op, async (call) => {
    await call();
    throw new Error(`crash after ${op}`);
  });

export const money = (c: number) => (c / 100).toFixed(2);

/** A run's result that paid nothing and held `held` orders, re-checked a minute later. */
export const onlyHeld = (shop: PayShop, held: number) => ({
  batchesPaid: 0,
  ordersPaid: 0,
  held,
  failed: 0,
  recheckAt: new Date(shop.clock.t + 60_000),
});

/** The service pays an order by itself (another tool, the console): cart, confirm, parent, pay. */
export async function paidAtService(shop: PayShop, svcOrderId: string) {
  await shop.client.orders.addCart([svcOrderId]);
  const c = await shop.client.orders.addCartConfirm([svcOrderId]);
  await shop.client.orders.saveGenerateParentOrder(c.shipmentsId!);
  await shop.client.payment.payBalanceV2(c.shipmentsId!);
}

/** A shop with two waiting orders, and bystanders: a failed order of it and another shop's. */
export async function batchOfTwo(svc: ServiceSim, o: Parameters<typeof payShop>[1] = {}) {
  const shop = await payShop(svc, o);
  const orders = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
  const other = await payShop(svc);
  const idle = [
    await svcOrder(svc, shop, { row: { state: "FAILED", reasonCode: "payment_failed" } }),
    await svcOrder(svc, other),
  ];
  const untouched = await bystanders(svc, idle);
  return { shop, orders, untouched, start: balanceCents(svc, shop), amount: sumCents(orders) };
}

/** The payment batch an order is in. */
export async function batchOf(o: { id: string }) {
  const r = await reload(o);
  return prisma.paymentBatch.findUniqueOrThrow({ where: { id: r.paymentBatchId! } });
}

export const batchState = async (id: string) =>
  (await prisma.paymentBatch.findUniqueOrThrow({ where: { id } })).state;

/** Rows put in a batch at the given step, as an earlier run left them. */
export async function leftAt(
  shop: PayShop,
  state: string,
  ids: string[],
  b: Partial<PaymentBatch> = {},
) {
  const batch = await prisma.paymentBatch.create({
    data: { svcAccountId: shop.accountId, isSandbox: false, state, ...b },
  });
  await prisma.shopOrder.updateMany({
    where: { id: { in: ids } },
    data: { state: "PAYING", paymentBatchId: batch.id },
  });
  return batch;
}

/** Two waiting orders; the first run crashes right after `op`. */
export async function crashed(svc: ServiceSim, op: string) {
  const shop = await payShop(svc);
  const orders = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
  await expect(shop.run(crashAfter(shop.deps, op))).rejects.toThrow(`crash after ${op}`);
  const batchId = (await reload(orders[0]!)).paymentBatchId!;
  return { shop, orders, batchId };
}
