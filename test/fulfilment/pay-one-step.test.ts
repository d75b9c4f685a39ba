/**
 * The payment steps one at a time (app/fulfilment/pay/cart.server.ts, parent.server.ts,
 * leave.server.ts), against the service simulator and the test database: what each step
 * answers (the next state, or "done"), what it writes on the batch before the next step runs (a
 * crash between two steps resumes from there), and the calls it does not make. Then the
 * service's reasons per order, from each shape its replies use.
 */
import type { PaymentBatch } from "@prisma/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cartStep, confirmingStep, confirmStep } from "../../app/fulfilment/pay/cart.server";
import {
  batchOrders,
  type BatchRun,
  type BatchState,
  type RunCtx,
} from "../../app/fulfilment/pay/context.server";
import { reasonsById } from "../../app/fulfilment/pay/leave.server";
import { parentStep, reserveStep } from "../../app/fulfilment/pay/parent.server";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { getSettings } from "../../app/settings.server";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import {
  aroundOp,
  calls,
  leftAt,
  type PayShop,
  payShop,
  prisma,
  reload,
  reloadAll,
  row,
  svcOrder,
} from "./pay-helpers";

let svc: ServiceSim;
beforeAll(async () => {
  svc = await startServiceSim();
});
afterAll(async () => svc?.close());
afterEach(() => svc.clearFaults());

/** A payment run's context for `shop`, as payAccount builds it (nothing known of the balance). */
async function ctxOf(shop: PayShop, deps: FulfilmentDeps = shop.deps): Promise<RunCtx> {
  return {
    deps,
    client: await deps.svcFor(shop.accountId),
    accountId: shop.accountId,
    shopDomain: shop.shopDomain,
    settings: await getSettings(prisma, shop.shopDomain),
    balance: null,
    balanceFresh: false,
    storedBalance: null,
    reserved: new Set(),
    result: { batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0 },
  };
}

/** The batch's round as the runner starts it: the batch as stored, its orders, its state. */
async function roundOf(batch: PaymentBatch): Promise<BatchRun> {
  const stored = await prisma.paymentBatch.findUniqueOrThrow({ where: { id: batch.id } });
  return {
    batch: stored,
    orders: await batchOrders(prisma, batch.id),
    at: stored.state as BatchState,
  };
}

const stored = (batch: PaymentBatch) =>
  prisma.paymentBatch.findUniqueOrThrow({ where: { id: batch.id } });

/** Two waiting orders of a new shop in a batch at `state`, carted at the service when asked. */
async function twoAt(state: BatchState, o: { carted?: boolean; sandbox?: boolean } = {}) {
  const shop = await payShop(svc);
  const orders = [
    await svcOrder(svc, shop, { sandbox: o.sandbox }),
    await svcOrder(svc, shop, { sandbox: o.sandbox }),
  ];
  const ids = orders.map((x) => x.svcOrderId!);
  if (o.carted) await shop.client.orders.addCart(ids);
  const batch = await leftAt(
    shop,
    state,
    orders.map((x) => x.id),
    { isSandbox: o.sandbox ?? false },
  );
  return { shop, orders, ids, batch };
}

describe("the cart step", () => {
  it("carts the batch: the batch reads carted before the next step, nothing asked of the orders", async () => {
    const { shop, batch } = await twoAt("open");
    const ctx = await ctxOf(shop);
    const round = await roundOf(batch);
    expect(await cartStep(ctx, round)).toBe("carted");
    expect((await stored(batch)).state).toBe("carted");
    expect(round.batch.state).toBe("carted");
    expect(calls(svc, shop, "addCart")).toBe(1);
    // Every order was added: none to look up at the service, none failed.
    expect(calls(svc, shop, "getOrderDetailBatch")).toBe(0);
    expect(ctx.result).toMatchObject({ failed: 0, ordersPaid: 0 });
  });

  it("an order refused and not paid at the service leaves alone: the known balance stays trusted", async () => {
    const shop = await payShop(svc);
    const good = await svcOrder(svc, shop);
    const ghost = await row(shop, { svcOrderId: "SO-GONE-STEP", amount: "4.00" });
    const batch = await leftAt(shop, "open", [good.id, ghost.id]);
    const knownAt = new Date(shop.clock.t - 1000);
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: "900.00", knownBalanceAt: knownAt },
    });
    const ctx = await ctxOf(shop);
    expect(await cartStep(ctx, await roundOf(batch))).toBe("carted");
    expect(ctx.result).toMatchObject({ failed: 1, ordersPaid: 0 });
    const [g, x] = await reloadAll([good, ghost]);
    expect(g).toMatchObject({ state: "PAYING", paymentBatchId: batch.id });
    expect(x).toMatchObject({ state: "FAILED", reasonCode: "intercepted", paymentBatchId: null });
    expect(x!.reasonMessage).toContain("order does not exist");
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalanceAt).toEqual(knownAt);
    expect(account.knownBalance).toBe("900.00");
  });
});

describe("the confirm step", () => {
  it("confirms the carted orders only: an order of the batch no longer being paid keeps no parent id", async () => {
    const { shop, orders, batch } = await twoAt("carted", { carted: true });
    const failed = await svcOrder(svc, shop, {
      row: { state: "FAILED", reasonCode: "payment_failed", paymentBatchId: batch.id },
    });
    const round = await roundOf(batch);
    expect(await confirmStep(await ctxOf(shop), round)).toBe("confirmed");
    const after = await stored(batch);
    expect(after.state).toBe("confirmed");
    expect(after.shipmentOrderId).toMatch(/\S/);
    expect(round.batch).toEqual(after);
    for (const r of await reloadAll(orders)) expect(r.shipmentOrderId).toBe(after.shipmentOrderId);
    expect((await reload(failed)).shipmentOrderId).toBeNull();
  });

  it("a batch every order left meanwhile fails, and nothing is confirmed", async () => {
    const { shop, orders, batch } = await twoAt("carted", { carted: true });
    const round = await roundOf(batch);
    // Both orders leave after the round began (a cancel took them out).
    await prisma.shopOrder.updateMany({
      where: { id: { in: orders.map((o) => o.id) } },
      data: { paymentBatchId: null, state: "CANCELLED" },
    });
    expect(await confirmStep(await ctxOf(shop), round)).toBe("done");
    expect(await stored(batch)).toMatchObject({
      state: "failed",
      error: "every order left the batch",
    });
    expect(calls(svc, shop, "addCartConfirm")).toBe(0);
  });
});

describe("a confirmation whose outcome is unknown", () => {
  it("every order still in the cart: confirmed again, the batch back at carted", async () => {
    const { shop, batch } = await twoAt("confirming", { carted: true });
    const round = await roundOf(batch);
    expect(await confirmingStep(await ctxOf(shop), round)).toBe("carted");
    expect((await stored(batch)).state).toBe("carted");
    expect(round.batch.state).toBe("carted");
  });

  it.each([
    ["every order", false],
    ["one order", true],
  ])(
    "%s out of the cart again (the cart was emptied): carted again, then paid once",
    async (_, oneCarted) => {
      const { shop, orders, ids, batch } = await twoAt("confirming");
      if (oneCarted) await shop.client.orders.addCart([ids[0]!]);
      const round = await roundOf(batch);
      expect(await confirmingStep(await ctxOf(shop), round)).toBe("open");
      expect((await stored(batch)).state).toBe("open");
      const carts = calls(svc, shop, "addCart");
      expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2, failed: 0 });
      for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
      expect(calls(svc, shop, "addCart")).toBe(carts + 1);
      expect(calls(svc, shop, "payBalanceV2")).toBe(1);
    },
  );
});

describe("the parent step", () => {
  async function confirmed() {
    const { shop, orders, ids, batch } = await twoAt("carted", { carted: true });
    const c = await shop.client.orders.addCartConfirm(ids);
    await prisma.paymentBatch.update({
      where: { id: batch.id },
      data: { state: "confirmed", shipmentOrderId: c.shipmentsId! },
    });
    return { shop, orders, batch };
  }

  it.each([
    ["payAmount first", { payAmount: "12.30", amount: "45.60", orderMoney: "78.90" }, "12.30"],
    ["then amount", { payAmount: undefined, amount: "45.60", orderMoney: "78.90" }, "45.60"],
    [
      "then orderMoney (the contract's field)",
      { payAmount: undefined, amount: undefined, orderMoney: "78.90" },
      "78.90",
    ],
    ["none: no amount", { payAmount: undefined, amount: undefined, orderMoney: undefined }, null],
  ])("keeps the parent's amount payable: %s", async (_, reply, expected) => {
    const { shop, orders, batch } = await confirmed();
    const deps = aroundOp(shop.deps, "saveGenerateParentOrder", async (call) => ({
      ...((await call()) as object),
      ...reply,
    }));
    const round = await roundOf(batch);
    expect(await parentStep(await ctxOf(shop, deps), round)).toBe("parented");
    const after = await stored(batch);
    expect(after).toMatchObject({ state: "parented", amount: expected });
    expect(after.payId).toMatch(/\S/);
    expect(round.batch).toEqual(after);
    for (const r of await reloadAll(orders)) expect(r.payId).toBe(after.payId);
  });
});

describe("the reserve step", () => {
  /** Two orders with their parent generated at the service, the batch at parented. */
  async function parented(o: { sandbox?: boolean } = {}) {
    const { shop, orders, ids, batch } = await twoAt("carted", { carted: true, ...o });
    const c = await shop.client.orders.addCartConfirm(ids);
    const p = await shop.client.orders.saveGenerateParentOrder(c.shipmentsId!);
    await prisma.paymentBatch.update({
      where: { id: batch.id },
      data: {
        state: "parented",
        shipmentOrderId: c.shipmentsId!,
        payId: p.payId!,
        amount: p.payAmount!,
      },
    });
    return { shop, orders, batch, amount: p.payAmount! };
  }

  it("a sandbox batch costs nothing: the balance is neither asked nor lowered, the batch paid", async () => {
    const { shop, orders, batch, amount } = await parented({ sandbox: true });
    expect(Number(amount)).toBeGreaterThan(0);
    const round = await roundOf(batch);
    expect(await reserveStep(await ctxOf(shop), round)).toBe("done");
    expect(calls(svc, shop, "getBalance")).toBe(0);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBeNull();
    expect((await stored(batch)).state).toBe("paid");
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
  });

  it("a batch the balance does not cover is held, and the run is done with it", async () => {
    const { shop, orders, batch } = await twoAt("parented");
    svc.setBalance(shop.simAccountId, "1.00");
    await prisma.paymentBatch.update({ where: { id: batch.id }, data: { amount: "30.00" } });
    const ctx = await ctxOf(shop);
    expect(await reserveStep(ctx, await roundOf(batch))).toBe("done");
    expect(calls(svc, shop, "payBalanceV2")).toBe(0);
    for (const r of await reloadAll(orders))
      expect(r).toMatchObject({ state: "HELD", reasonCode: "short_balance" });
    expect((await stored(batch)).state).toBe("parented");
  });

  it("a batch this run already took off the balance is not taken off again", async () => {
    const { shop, orders, batch } = await parented();
    const ctx = await ctxOf(shop);
    ctx.balance = "5.00"; // what is left once this batch is paid, as the run counted it
    ctx.reserved.add(batch.id);
    expect(await reserveStep(ctx, await roundOf(batch))).toBe("done");
    expect(calls(svc, shop, "getBalance")).toBe(0);
    expect(ctx.balance).toBe("5.00");
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
  });

  it("a resumed batch is taken off the balance before it is paid", async () => {
    const { shop, orders, batch, amount } = await parented();
    const ctx = await ctxOf(shop);
    ctx.balance = "500.00";
    expect(await reserveStep(ctx, await roundOf(batch))).toBe("done");
    expect(ctx.balance).toBe((500 - Number(amount)).toFixed(2));
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
  });
});

describe("the service's reasons per order", () => {
  it("reads each shape the replies use, the service's own reason before the generic one", () => {
    const why = reasonsById({
      interceptOrderReasons: [
        { orderId: "A", message: "address incomplete" },
        { svcOrderId: "B", reason: "no stock" },
        { id: 7, meaning: "blocked country" },
        { orderId: "A", message: "phone missing" },
        { orderId: "C", message: "" },
        { orderId: "D" },
        { orderId: true, message: "an id of no known type" },
        { message: "no id" },
        null,
        false,
      ],
      interceptOrders: ["A", "E", 9, null, { orderId: "F", message: "held by risk control" }],
    });
    expect(Object.fromEntries(why)).toEqual({
      A: "address incomplete; phone missing",
      B: "no stock",
      "7": "blocked country",
      C: "intercepted",
      D: "intercepted",
      E: "intercepted at confirmation",
      "9": "intercepted at confirmation",
      F: "held by risk control",
    });
  });

  it("a field that is not a list is no reason", () => {
    expect(reasonsById({ interceptOrderReasons: "A", interceptOrders: { A: 1 } }).size).toBe(0);
    expect(reasonsById({}).size).toBe(0);
  });
});
