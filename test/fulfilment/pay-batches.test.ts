/**
 * Payment batches (`payAccount`), run directly against the service simulator over HTTP and the
 * test database: only the batch's orders are paid (other orders of the account and other shops'
 * orders untouched), the balance goes down by exactly what was paid, several batches of one run
 * never spend the same money, an order costing exactly the balance is paid and one cent more is
 * held, refusals at the cart and interceptions at confirmation leave the batch with the
 * service's reason, sandbox and normal orders never share a batch. When things go wrong (the
 * payment call failing, timing out with the payment taken, refused; a crash right after each
 * step) the next run resumes: every order paid exactly once, nothing paid for orders that left
 * the batch, nothing marked PAID that the service was not paid for. A partial batch waits for
 * creates still in flight.
 *
 * One file (one database and one simulator): Stryker runs the covering tests once per mutant.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cancelOrder } from "../../app/fulfilment/actions.server";
import { currentLogContext, withLogContext } from "../../app/log-context.server";
import { payAccount } from "../../app/fulfilment/pay/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { recheckHeld, SETTINGS_CAUSES } from "../../app/orders/recheck.server";
import { labelModeReason, updateSettings } from "../../app/settings.server";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import {
  balanceCents,
  batchOf,
  batchOfTwo,
  batchState,
  bystanders,
  calls,
  cents,
  aroundOp,
  crashAfter,
  crashed,
  leftAt,
  money,
  onlyHeld,
  paidAtService,
  payShop,
  prisma,
  reload,
  reloadAll,
  row,
  sumCents,
  svcOrder,
} from "./pay-helpers";

let svc: ServiceSim;
beforeAll(async () => {
  svc = await startServiceSim();
});
afterAll(async () => svc?.close());
afterEach(() => svc.clearFaults());

const PAY_OPS = ["addCart", "addCartConfirm", "saveGenerateParentOrder", "payBalanceV2"];

describe("one batch", () => {
  it("pays only its own orders, by exactly their amount; every other row and shop is untouched", async () => {
    const shop = await payShop(svc, { balance: "1000.00" });
    const other = await payShop(svc, { balance: "500.00" });
    const a1 = await svcOrder(svc, shop);
    const a2 = await svcOrder(svc, shop, { quantity: 2 });
    // Orders of this account that are not waiting for payment, and another shop's waiting order.
    const idle = [
      await svcOrder(svc, shop, { row: { state: "FAILED", reasonCode: "intercepted" } }),
      await svcOrder(svc, shop, { row: { state: "HELD", reasonCode: "unconnected" } }),
      await svcOrder(svc, shop, { row: { state: "PAID", paymentBatchId: "old", payId: "OLD" } }),
      await svcOrder(svc, shop, { row: { state: "CREATED", paymentBatchId: "other" } }),
      await row(shop, { state: "CREATED", amount: "3.00" }),
      await svcOrder(svc, other),
    ];
    const untouched = await bystanders(svc, idle);

    const result = await shop.run();
    expect(result).toEqual({ batchesPaid: 1, ordersPaid: 2, held: 0, failed: 0 });
    const [p1, p2] = await reloadAll([a1, a2]);
    const batch = await prisma.paymentBatch.findUniqueOrThrow({
      where: { id: p1!.paymentBatchId! },
    });
    expect(batch).toMatchObject({ state: "paid", isSandbox: false, svcAccountId: shop.accountId });
    expect(batch.amount).toBe(money(sumCents([a1, a2])));
    expect(batch.paidAt).toEqual(new Date(shop.clock.t));
    for (const p of [p1!, p2!]) {
      expect(p).toMatchObject({
        state: "PAID",
        paymentBatchId: batch.id,
        payId: batch.payId,
        shipmentOrderId: batch.shipmentOrderId,
        reasonCode: null,
        reasonMessage: null,
        paidAt: new Date(shop.clock.t),
      });
      expect(svc.order(p.svcOrderId!)!.paid).toBe(true);
      expect(p.timeline.map((t) => [t.step, t.outcome])).toEqual([
        ["cart", "ok"],
        ["parent", "ok"],
        ["pay", "ok"],
      ]);
      expect(p.timeline[0]!.message).toBe("Added to the service cart (batch of 2).");
      expect(p.timeline[1]!.message).toContain(`${batch.amount} USD payable`);
      expect(p.timeline[2]!.message).toBe(
        `Paid from the balance with parent ${batch.shipmentOrderId} (${batch.amount} USD for 2 order(s)).`,
      );
    }
    expect(batch.payId).toMatch(/^PAY/);
    expect(balanceCents(svc, shop)).toBe(100_000 - sumCents([a1, a2]));
    expect(svc.getBalance(other.simAccountId)).toBe("500.00");
    for (const op of ["getBalance", ...PAY_OPS]) expect(calls(svc, shop, op), op).toBe(1);
    // The known balance is the service's answer less the batch, asked at this run's time.
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe(svc.getBalance(shop.simAccountId));
    expect(account.knownBalanceAt).toEqual(new Date(shop.clock.t));
    await untouched();

    // Nothing left to pay: a second run calls nothing and changes nothing.
    const again = await bystanders(svc, [...idle, p1!, p2!]);
    expect(await shop.run()).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0 });
    for (const op of PAY_OPS) expect(calls(svc, shop, op), op).toBe(1);
    await again();
  });

  it("an unknown account pays nothing", async () => {
    const shop = await payShop(svc);
    expect(await payAccount(shop.deps, "no-such-account")).toEqual({
      batchesPaid: 0,
      ordersPaid: 0,
      held: 0,
      failed: 0,
    });
  });

  it("autoPay off: waiting orders are not batched", async () => {
    const shop = await payShop(svc, { settings: { autoPay: false } });
    const o = await svcOrder(svc, shop);
    const untouched = await bystanders(svc, [o]);
    expect(await shop.run()).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0 });
    expect(calls(svc, shop, "addCart")).toBe(0);
    await untouched();
  });
});

describe("the balance", () => {
  it("an order costing exactly the balance is paid; one cent more is held", async () => {
    const exact = await payShop(svc);
    const o = await svcOrder(svc, exact);
    svc.setBalance(exact.simAccountId, o.amount!);
    expect(await exact.run()).toMatchObject({ ordersPaid: 1, held: 0 });
    expect((await reload(o)).state).toBe("PAID");
    expect(svc.getBalance(exact.simAccountId)).toBe("0.00");

    const short = await payShop(svc);
    const s = await svcOrder(svc, short);
    const balance = money(cents(s.amount) - 1);
    svc.setBalance(short.simAccountId, balance);
    const result = await short.run();
    expect(result).toEqual(onlyHeld(short, 1));
    const held = await reload(s);
    expect(held).toMatchObject({
      state: "HELD",
      reasonCode: "short_balance",
      paymentBatchId: null,
    });
    expect(held.reasonMessage).toBe(
      `The service balance (${balance} USD available) does not cover this order (${s.amount} USD). It is paid automatically once the balance is topped up.`,
    );
    expect(held.timeline.map((t) => [t.step, t.outcome, t.errorCode])).toEqual([
      ["pay", "held", "short_balance"],
    ]);
    expect(calls(svc, short, "addCart")).toBe(0);
    expect(svc.getBalance(short.simAccountId)).toBe(balance);
    // A re-check is queued a minute (balanceRecheckMs) from now, not at once.
    const jobs = await prisma.job.findMany({
      where: { kind: JOB.pay, shopDomain: short.shopDomain, state: "available" },
    });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.runAt.getTime() - Date.now()).toBeGreaterThan(30_000);
    expect(jobs[0]!.runAt.getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    expect(jobs[0]!.idempotencyKey).toContain(`recheck:${Math.floor(short.clock.t / 60_000)}`);

    // Still short on the next run: held again, one timeline entry, the balance asked again.
    const asked = calls(svc, short, "getBalance");
    await short.run();
    const still = await reload(s);
    expect(still.state).toBe("HELD");
    expect(still.timeline).toHaveLength(1);
    expect(calls(svc, short, "getBalance")).toBe(asked + 1);

    // Topped up to exactly the amount while the stored balance is still trusted: the stored
    // balance says no, so the service is asked before holding, and the order is paid.
    svc.setBalance(short.simAccountId, s.amount!);
    expect(await short.run()).toMatchObject({ ordersPaid: 1, held: 0 });
    const paid = await reload(s);
    expect(paid).toMatchObject({ state: "PAID", reasonCode: null, reasonMessage: null });
    expect(svc.getBalance(short.simAccountId)).toBe("0.00");
  });

  it("two and three batches in one run spend the balance once; what it does not cover is held with the amounts", async () => {
    const shop = await payShop(svc, { settings: { payBatchSize: 2 } });
    const t = shop.clock.t;
    const orders = [];
    // Created newest first: the run still takes the oldest first.
    for (let i = 6; i >= 0; i--)
      orders.unshift(await svcOrder(svc, shop, { placedAt: new Date(t - 60_000 + i * 1000) }));
    const paidFirst = orders.slice(0, 6);
    const last = orders[6]!;
    const left = cents(last.amount) - 1;
    svc.setBalance(shop.simAccountId, money(sumCents(paidFirst) + left));

    const result = await shop.run();
    expect(result).toMatchObject({ batchesPaid: 3, ordersPaid: 6, held: 1, failed: 0 });
    const rows = await reloadAll(orders);
    for (const r of rows.slice(0, 6)) expect(r.state).toBe("PAID");
    const batchOf = rows.map((r) => r.paymentBatchId);
    expect(batchOf[0]).toBe(batchOf[1]);
    expect(batchOf[2]).toBe(batchOf[3]);
    expect(batchOf[4]).toBe(batchOf[5]);
    expect(new Set(batchOf.slice(0, 6)).size).toBe(3);
    const batches = await prisma.paymentBatch.findMany({
      where: { svcAccountId: shop.accountId },
      orderBy: { createdAt: "asc" },
    });
    expect(batches.map((b) => b.id)).toEqual([batchOf[0], batchOf[2], batchOf[4]]);
    expect(calls(svc, shop, "payBalanceV2")).toBe(3);
    expect(calls(svc, shop, "getBalance")).toBe(1);
    expect(balanceCents(svc, shop)).toBe(left);
    expect(rows[6]).toMatchObject({
      state: "HELD",
      reasonCode: "short_balance",
      paymentBatchId: null,
    });
    expect(rows[6]!.reasonMessage).toContain(`(${money(left)} USD available)`);
    expect(rows[6]!.reasonMessage).toContain(`(${last.amount} USD)`);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe(money(left));

    // Topped up by one cent: the stored balance is asked again, the held order paid alone.
    svc.setBalance(shop.simAccountId, last.amount!);
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 1, held: 0 });
    expect((await reload(last)).state).toBe("PAID");
    expect(svc.getBalance(shop.simAccountId)).toBe("0.00");
  });

  it("a stale known balance is asked again; a trusted one is lowered by each batch", async () => {
    const shop = await payShop(svc, { settings: { payBatchSize: 1 } });
    const trust = 5 * 60_000;
    // Known 1000.00 but just too old to trust: the service (200.00) is asked.
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: "1000.00", knownBalanceAt: new Date(shop.clock.t - trust) },
    });
    svc.setBalance(shop.simAccountId, "200.00");
    const a = await svcOrder(svc, shop);
    const b = await svcOrder(svc, shop, { placedAt: new Date(shop.clock.t) });
    await shop.run();
    expect(calls(svc, shop, "getBalance")).toBe(1);
    let account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe(money(20_000 - sumCents([a, b])));
    expect(account.knownBalanceAt).toEqual(new Date(shop.clock.t));
    expect((await reloadAll([a, b])).map((r) => r.state)).toEqual(["PAID", "PAID"]);

    // Trusted (asked a moment ago): not asked, and lowered by the new batch.
    shop.clock.t += trust - 1;
    svc.setBalance(shop.simAccountId, "150.00");
    const c = await svcOrder(svc, shop);
    await shop.run();
    expect(calls(svc, shop, "getBalance")).toBe(1);
    account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe(money(20_000 - sumCents([a, b, c])));
    expect(balanceCents(svc, shop)).toBe(15_000 - cents(c.amount));

    // No known balance at all: asked.
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: null },
    });
    const d = await svcOrder(svc, shop);
    await shop.run();
    expect(calls(svc, shop, "getBalance")).toBe(2);
    expect((await reload(d)).state).toBe("PAID");
  });
});

describe("sandbox", () => {
  it("sandbox and normal orders never share a batch; sandbox charges nothing", async () => {
    const shop = await payShop(svc, { balance: "0.00" });
    const n1 = await svcOrder(svc, shop);
    const s1 = await svcOrder(svc, shop, { sandbox: true });
    const s2 = await svcOrder(svc, shop, { sandbox: true });
    const result = await shop.run();
    expect(result).toMatchObject({ batchesPaid: 1, ordersPaid: 2, held: 1 });
    const [r1, r2, rn] = await reloadAll([s1, s2, n1]);
    expect([r1!.state, r2!.state]).toEqual(["PAID", "PAID"]);
    expect(r1!.paymentBatchId).toBe(r2!.paymentBatchId);
    const sb = await prisma.paymentBatch.findUniqueOrThrow({ where: { id: r1!.paymentBatchId! } });
    expect(sb.isSandbox).toBe(true);
    expect(r1!.timeline.at(-1)!.message).toContain("(sandbox: nothing charged)");
    expect(rn).toMatchObject({ state: "HELD", reasonCode: "short_balance", paymentBatchId: null });
    expect(svc.getBalance(shop.simAccountId)).toBe("0.00");
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe("0.00");

    svc.setBalance(shop.simAccountId, "100.00");
    await shop.run();
    const paid = await reload(n1);
    expect(paid.state).toBe("PAID");
    expect(paid.paymentBatchId).not.toBe(sb.id);
    const nb = await prisma.paymentBatch.findUniqueOrThrow({ where: { id: paid.paymentBatchId! } });
    expect(nb.isSandbox).toBe(false);
    expect(paid.timeline.at(-1)!.message).not.toContain("sandbox");
    expect(balanceCents(svc, shop)).toBe(10_000 - cents(n1.amount));
    // Each paid sandbox order (and no other) gets its test tracking job, once.
    const jobs = await prisma.job.findMany({
      where: { kind: JOB.sandboxTrack, shopDomain: shop.shopDomain },
      orderBy: { id: "asc" },
    });
    expect(jobs.map((j) => j.payload)).toEqual([{ orderId: s1.id }, { orderId: s2.id }]);
  });
});

describe("automatic payment off", () => {
  it("pays only the orders the merchant asked to pay (Pay now), never the others", async () => {
    const shop = await payShop(svc, { balance: "500.00", settings: { autoPay: false } });
    const asked = await svcOrder(svc, shop, { row: { payRequestedAt: new Date() } });
    const waiting = await svcOrder(svc, shop);
    const before = balanceCents(svc, shop);
    const result = await shop.run();
    expect(result).toMatchObject({ batchesPaid: 1, ordersPaid: 1 });
    const [a, w] = await reloadAll([asked, waiting]);
    expect(a!.state).toBe("PAID");
    expect(w).toMatchObject({ state: "CREATED", paymentBatchId: null });
    expect(balanceCents(svc, shop)).toBe(before - cents(asked.amount));
    expect(svc.order(waiting.svcOrderId!)!.paid).toBe(false);
    // Nothing asked: a run pays nothing.
    expect(await shop.run()).toMatchObject({ batchesPaid: 0, ordersPaid: 0 });
    expect((await reload(waiting)).state).toBe("CREATED");
  });
});

describe("refusals and interceptions", () => {
  it("refused at the cart: the others are paid, the refused carry the service's reason, one paid elsewhere is adopted", async () => {
    const shop = await payShop(svc);
    const ok1 = await svcOrder(svc, shop);
    const ok2 = await svcOrder(svc, shop);
    const ghost = await row(shop, { svcOrderId: "SO-GONE-1", amount: "4.00" });
    const confirmed = await svcOrder(svc, shop);
    await shop.client.orders.addCart([confirmed.svcOrderId!]);
    await shop.client.orders.addCartConfirm([confirmed.svcOrderId!]);
    const elsewhere = await svcOrder(svc, shop);
    await paidAtService(shop, elsewhere.svcOrderId!);
    const start = balanceCents(svc, shop);

    const result = await shop.run();
    expect(result).toEqual({ batchesPaid: 1, ordersPaid: 3, held: 0, failed: 2 });
    const [r1, r2, rg, rc, re] = await reloadAll([ok1, ok2, ghost, confirmed, elsewhere]);
    expect([r1!.state, r2!.state]).toEqual(["PAID", "PAID"]);
    expect(r1!.timeline[0]!.message).toBe("Added to the service cart (batch of 2).");
    expect(balanceCents(svc, shop)).toBe(start - sumCents([ok1, ok2]));
    for (const [r, why] of [
      [rg!, "SO-GONE-1"],
      [rc!, "UNPAID"],
    ] as const) {
      expect(r).toMatchObject({
        state: "FAILED",
        reasonCode: "intercepted",
        paymentBatchId: null,
        payId: null,
      });
      expect(r.reasonMessage).toMatch(
        /^Not added to the service cart: .+\. Correct the cause, then Retry\.$/,
      );
      expect(r.timeline.map((t) => [t.step, t.outcome, t.errorCode])).toEqual([
        ["pay", "error", "intercepted"],
      ]);
      expect(r.timeline[0]!.message).toBe(r.reasonMessage);
      if (why === "UNPAID") expect(r.reasonMessage).toContain("order status UNPAID");
      else expect(r.reasonMessage).toContain("order does not exist");
    }
    expect(svc.order(confirmed.svcOrderId!)!.paid).toBe(false);
    // Paid at the service already: PAID without a charge by the app, the stored balance distrusted.
    expect(re).toMatchObject({ state: "PAID", paymentBatchId: null, reasonCode: null });
    expect(re!.paidAt).toEqual(new Date(shop.clock.t));
    expect(re!.timeline.map((t) => [t.step, t.outcome, t.message])).toEqual([
      [
        "pay",
        "ok",
        "Already paid at the service (outside the app, e.g. in its console): nothing charged by the app.",
      ],
    ]);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalanceAt).toBeNull();
  });

  it("nothing in the batch can be carted: all leave it, a paid one adopted, the rest failed", async () => {
    const shop = await payShop(svc);
    const ghost = await row(shop, { svcOrderId: "SO-GONE-2", amount: "4.00" });
    const elsewhere = await svcOrder(svc, shop);
    await paidAtService(shop, elsewhere.svcOrderId!);
    const bystander = await svcOrder(svc, shop, { row: { state: "FAILED" } });
    const untouched = await bystanders(svc, [bystander]);
    const start = balanceCents(svc, shop);

    const result = await shop.run();
    expect(result).toMatchObject({ batchesPaid: 0, ordersPaid: 1, failed: 1 });
    const [rg, re] = await reloadAll([ghost, elsewhere]);
    expect(re).toMatchObject({ state: "PAID", paymentBatchId: null });
    expect(rg).toMatchObject({ state: "FAILED", reasonCode: "intercepted", paymentBatchId: null });
    expect(rg!.reasonMessage).toMatch(
      /^Refused by the service: addCart: no order could be added to the cart: .*SO-GONE-2 order does not exist.*\(code 1603001\)\. Correct the cause, then Retry\.$/,
    );
    expect(rg!.timeline.at(-1)!.errorCode).toBe("1603001");
    const batch = await prisma.paymentBatch.findFirstOrThrow({
      where: { svcAccountId: shop.accountId },
    });
    expect(batch.state).toBe("failed");
    expect(batch.error).toContain("no order could be added to the cart");
    expect(calls(svc, shop, "addCartConfirm")).toBe(1); // the one of paidAtService
    expect(balanceCents(svc, shop)).toBe(start);
    await untouched();
  });

  it("intercepted at confirmation: not paid, the service's reasons kept; the rest of the batch paid", async () => {
    const shop = await payShop(svc);
    const ok = await svcOrder(svc, shop);
    const kp = await svcOrder(svc, shop, { country: "KP" });
    const box = await svcOrder(svc, shop, { address: "PO Box 12", country: "IR" });
    const start = balanceCents(svc, shop);

    const result = await shop.run();
    expect(result).toEqual({ batchesPaid: 1, ordersPaid: 1, held: 0, failed: 2 });
    const [ro, rk, rb] = await reloadAll([ok, kp, box]);
    expect(ro!.state).toBe("PAID");
    expect(ro!.shipmentOrderId).toMatch(/^SH/);
    expect(ro!.timeline.at(-1)!.message).toContain(`for 1 order(s)`);
    expect(balanceCents(svc, shop)).toBe(start - cents(ok.amount));
    expect(rk).toMatchObject({
      state: "FAILED",
      reasonCode: "intercepted",
      paymentBatchId: null,
      shipmentOrderId: null,
      payId: null,
      reasonMessage:
        "Intercepted by the service at confirmation: destination KP is not supported. Correct the cause, then Retry.",
    });
    expect(rb!.reasonMessage).toBe(
      "Intercepted by the service at confirmation: destination IR is not supported; PO Box addresses are not supported. Correct the cause, then Retry.",
    );
    expect(rb!.timeline.at(-1)).toMatchObject({
      step: "pay",
      outcome: "error",
      errorCode: "intercepted",
    });
    for (const r of [rk!, rb!]) expect(svc.order(r.svcOrderId!)!.paid).toBe(false);
    const batch = await prisma.paymentBatch.findUniqueOrThrow({
      where: { id: ro!.paymentBatchId! },
    });
    expect(batch.amount).toBe(ok.amount);
  });

  it("a confirmation naming intercepted orders by id only (the contract's reply): failed with the generic reason, the rest paid", async () => {
    const shop = await payShop(svc);
    const ok = await svcOrder(svc, shop);
    const kp = await svcOrder(svc, shop, { country: "KP" });
    const start = balanceCents(svc, shop);
    // The contract documents the confirmation's interceptOrders as order ids, without reasons.
    const idsOnly = aroundOp(shop.deps, "addCartConfirm", async (call) => {
      const reply = (await call()) as Record<string, unknown>;
      expect(reply.interceptOrders).toEqual([kp.svcOrderId]);
      delete reply.interceptOrderReasons;
      return reply;
    });
    expect(await shop.run(idsOnly)).toEqual({ batchesPaid: 1, ordersPaid: 1, held: 0, failed: 1 });
    const [ro, rk] = await reloadAll([ok, kp]);
    expect(ro!.state).toBe("PAID");
    expect(rk).toMatchObject({
      state: "FAILED",
      reasonCode: "intercepted",
      paymentBatchId: null,
      shipmentOrderId: null,
      reasonMessage:
        "Intercepted by the service at confirmation: intercepted at confirmation. Correct the cause, then Retry.",
    });
    expect(svc.order(kp.svcOrderId!)!.paid).toBe(false);
    expect(balanceCents(svc, shop)).toBe(start - cents(ok.amount));
  });

  it("a reason longer than the stored message's 500 characters is cut, the order still refused", async () => {
    const shop = await payShop(svc);
    const ok = await svcOrder(svc, shop);
    const odd = await svcOrder(svc, shop);
    const long = aroundOp(shop.deps, "addCart", async (call) => {
      const reply = (await call()) as { addSuccessOrders: string[]; interceptOrders: unknown[] };
      reply.addSuccessOrders = reply.addSuccessOrders.filter((id) => id !== odd.svcOrderId);
      reply.interceptOrders = [{ orderId: odd.svcOrderId, message: "x".repeat(600) }];
      return reply;
    });
    expect(await shop.run(long)).toMatchObject({ ordersPaid: 1, failed: 1 });
    const [ro, rx] = await reloadAll([ok, odd]);
    expect(ro!.state).toBe("PAID");
    expect(rx).toMatchObject({ state: "FAILED", reasonCode: "intercepted", paymentBatchId: null });
    expect(rx!.reasonMessage).toHaveLength(500);
    expect(rx!.reasonMessage).toBe(
      `Not added to the service cart: ${"x".repeat(600)}`.slice(0, 500),
    );
  });

  it("a confirmation without its parent shipment id: an error, nothing paid, the batch left to be checked", async () => {
    const { shop, orders, untouched, start } = await batchOfTwo(svc);
    const noShipment = aroundOp(shop.deps, "addCartConfirm", async (call) => {
      const reply = (await call()) as Record<string, unknown>;
      delete reply.shipmentsId;
      return reply;
    });
    await expect(shop.run(noShipment)).rejects.toMatchObject({
      operation: "addCartConfirm",
      message: "addCartConfirm: no shipmentsId in the confirmation",
    });
    for (const r of await reloadAll(orders)) {
      expect(r).toMatchObject({ state: "PAYING", shipmentOrderId: null });
      expect(r.timeline.at(-1)).toMatchObject({ step: "pay:confirming", outcome: "error" });
    }
    expect(await batchState((await reload(orders[0]!)).paymentBatchId!)).toBe("confirming");
    expect(calls(svc, shop, "saveGenerateParentOrder")).toBe(0);
    expect(balanceCents(svc, shop)).toBe(start);
    await untouched();
  });

  it("every order intercepted at confirmation: the batch fails with the service's message, nothing paid", async () => {
    const shop = await payShop(svc);
    const kp = await svcOrder(svc, shop, { country: "KP" });
    const start = balanceCents(svc, shop);
    const result = await shop.run();
    expect(result).toMatchObject({ batchesPaid: 0, ordersPaid: 0, failed: 1 });
    const r = await reload(kp);
    expect(r).toMatchObject({ state: "FAILED", reasonCode: "intercepted", paymentBatchId: null });
    expect(r.reasonMessage).toContain(
      "Refused by the service: addCartConfirm: no order could be confirmed",
    );
    expect(r.reasonMessage).toContain("destination KP is not supported");
    // Not asked whether it was paid elsewhere: it was in this app's cart.
    expect(calls(svc, shop, "getOrderDetailBatch")).toBe(0);
    const batch = await prisma.paymentBatch.findFirstOrThrow({
      where: { svcAccountId: shop.accountId },
    });
    expect(batch.state).toBe("failed");
    expect(balanceCents(svc, shop)).toBe(start);
  });
});

describe("the payment call", () => {
  it("fails with a 5xx: nothing paid, the batch waits; the next run pays it once", async () => {
    const { shop, orders, untouched, start, amount } = await batchOfTwo(svc);
    svc.setFaults({ rate5xx: 1, ops: ["payBalanceV2"] });
    await expect(shop.run()).rejects.toThrow(/payBalanceV2/);
    let rows = await reloadAll(orders);
    for (const r of rows) {
      expect(r.state).toBe("PAYING");
      expect(r.timeline.at(-1)).toMatchObject({ step: "pay:paying", outcome: "error" });
      expect(r.timeline.at(-1)!.message).toMatch(/^Will try again: payBalanceV2: HTTP 503/);
    }
    expect((await batchOf(orders[0]!)).state).toBe("paying");
    expect(balanceCents(svc, shop)).toBe(start);

    svc.clearFaults();
    expect(await shop.run()).toEqual({ batchesPaid: 1, ordersPaid: 2, held: 0, failed: 0 });
    rows = await reloadAll(orders);
    for (const r of rows) expect(r.state).toBe("PAID");
    expect(balanceCents(svc, shop)).toBe(start - amount);
    // Checked before paying again: not paid, so paid now (no note of an earlier payment).
    expect(rows[0]!.timeline.at(-1)!.message).not.toContain("found paid");
    // Asked once after the 5xx and once before paying again.
    expect(calls(svc, shop, "getOrderDetailBatch")).toBe(2);
    await untouched();
  });

  it("times out after taking the payment (reply dropped): confirmed by a query, paid once", async () => {
    const { shop, orders, untouched, start, amount } = await batchOfTwo(svc);
    svc.setFaults({ rateTimeout: 1, ops: ["payBalanceV2"], timeoutMs: 10, timeoutDrop: true });
    expect(await shop.run()).toEqual({ batchesPaid: 1, ordersPaid: 2, held: 0, failed: 0 });
    const rows = await reloadAll(orders);
    for (const r of rows) {
      expect(r.state).toBe("PAID");
      expect(r.timeline.at(-1)!.message).toMatch(
        /, confirmed by a query after an unknown outcome\.$/,
      );
    }
    expect((await batchOf(orders[0]!)).state).toBe("paid");
    expect(balanceCents(svc, shop)).toBe(start - amount);
    expect(calls(svc, shop, "payBalanceV2")).toBe(1);
    await untouched();
  });

  it("times out with the balance short (not paid): the next run asks, then holds the batch", async () => {
    const { shop, orders } = await batchOfTwo(svc);
    await shop.run();
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
    // Spent outside the app while the app still trusts the balance it knew.
    const more = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
    svc.setBalance(shop.simAccountId, "1.00");
    svc.setFaults({ rateTimeout: 1, ops: ["payBalanceV2"], timeoutMs: 10, timeoutDrop: true });
    await expect(shop.run()).rejects.toThrow(/payBalanceV2/);
    for (const r of await reloadAll(more)) expect(r.state).toBe("PAYING");
    expect((await batchOf(more[0]!)).state).toBe("paying");
    svc.clearFaults();
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, held: 2 });
    for (const r of await reloadAll(more)) {
      expect(r).toMatchObject({ state: "HELD", reasonCode: "short_balance" });
      expect(r.paymentBatchId).not.toBeNull();
    }
    expect(svc.getBalance(shop.simAccountId)).toBe("1.00");
  });
});

describe("a balance spent outside the app", () => {
  it("refused at payment: the batch is held with the real balance, then paid once after a top-up", async () => {
    const { shop, orders, untouched, amount } = await batchOfTwo(svc);
    // A trusted known balance that is no longer true.
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: "1000.00", knownBalanceAt: new Date(shop.clock.t) },
    });
    svc.setBalance(shop.simAccountId, "1.00");
    const result = await shop.run();
    expect(result).toEqual(onlyHeld(shop, 2));
    const batch = await batchOf(orders[0]!);
    expect(batch.state).toBe("parented");
    for (const r of await reloadAll(orders)) {
      expect(r).toMatchObject({
        state: "HELD",
        reasonCode: "short_balance",
        paymentBatchId: batch.id,
      });
      expect(r.reasonMessage).toBe(
        `The service balance (1.00 USD available) does not cover this payment batch (${money(amount)} USD for 2 order(s)). It is paid automatically once the balance is topped up.`,
      );
      expect(r.timeline.filter((t) => t.outcome === "held")).toHaveLength(1);
      expect(r.timeline.find((t) => t.outcome === "held")).toMatchObject({
        step: "pay",
        errorCode: "short_balance",
        message: r.reasonMessage,
      });
    }
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe("1.00");
    expect(calls(svc, shop, "getBalance")).toBe(1);

    // Still short: held again, no second timeline entry.
    await shop.run();
    for (const r of await reloadAll(orders)) {
      expect(r.state).toBe("HELD");
      expect(r.timeline.filter((t) => t.outcome === "held")).toHaveLength(1);
    }
    // Topped up to exactly the batch: the stored 1.00 says no, the service is asked, paid.
    svc.setBalance(shop.simAccountId, money(amount));
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2, held: 0 });
    for (const r of await reloadAll(orders))
      expect(r).toMatchObject({ state: "PAID", reasonCode: null, reasonMessage: null });
    expect(svc.getBalance(shop.simAccountId)).toBe("0.00");
    expect(calls(svc, shop, "saveGenerateParentOrder")).toBe(1);
    await untouched();
  });
});

describe("a crash right after a step", () => {
  it.each([["addCart"], ["saveGenerateParentOrder"], ["payBalanceV2"]])(
    "after %s: the next run resumes, every order paid exactly once",
    async (op) => {
      const { shop, orders, untouched, start, amount } = await batchOfTwo(svc);
      await expect(shop.run(crashAfter(shop.deps, op))).rejects.toThrow(`crash after ${op}`);
      for (const r of await reloadAll(orders)) expect(r.state).toBe("PAYING");
      // Where the batch stopped: the step whose reply was lost is the one it resumes at.
      expect((await batchOf(orders[0]!)).state).toBe(
        { addCart: "open", saveGenerateParentOrder: "confirmed", payBalanceV2: "paying" }[op],
      );
      // A new order while the batch waits goes into a batch of its own.
      const late = await svcOrder(svc, shop);
      const result = await shop.run();
      expect(result).toMatchObject({ batchesPaid: 2, ordersPaid: 3, held: 0, failed: 0 });
      const rows = await reloadAll(orders);
      for (const r of rows) expect(r.state).toBe("PAID");
      expect(rows[0]!.paymentBatchId).toBe(rows[1]!.paymentBatchId);
      const lateRow = await reload(late);
      expect(lateRow.state).toBe("PAID");
      expect(lateRow.paymentBatchId).not.toBe(rows[0]!.paymentBatchId);
      if (op === "payBalanceV2")
        expect(rows[0]!.timeline.at(-1)!.message).toMatch(
          /, found paid after an unknown outcome\.$/,
        );
      expect(balanceCents(svc, shop)).toBe(start - amount - cents(late.amount));
      expect(calls(svc, shop, "payBalanceV2")).toBe(2);
      // The known balance never claims more than the service has (a batch resumed after a crash
      // is taken off it again: low, never high, so at worst the service is asked once more).
      const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
      expect(cents(account.knownBalance)).toBeLessThanOrEqual(balanceCents(svc, shop));
      await untouched();
    },
  );

  it("after addCartConfirm: the parent order is unknown, nothing is paid, the merchant is told", async () => {
    const { shop, orders, untouched, start } = await batchOfTwo(svc);
    await expect(shop.run(crashAfter(shop.deps, "addCartConfirm"))).rejects.toThrow(
      "crash after addCartConfirm",
    );
    const batch = await batchOf(orders[0]!);
    expect(batch.state).toBe("confirming");
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, failed: 2 });
    for (const r of await reloadAll(orders)) {
      expect(r).toMatchObject({
        state: "FAILED",
        reasonCode: "confirm_unknown",
        paymentBatchId: null,
      });
      expect(r.reasonMessage).toContain("Pay it in the service's console, then Retry.");
      expect(r.timeline.at(-1)).toMatchObject({
        step: "confirm",
        outcome: "error",
        errorCode: "confirm_unknown",
      });
    }
    const after = await prisma.paymentBatch.findUniqueOrThrow({ where: { id: batch.id } });
    expect(after).toMatchObject({ state: "failed", error: "confirmation outcome unknown" });
    expect(balanceCents(svc, shop)).toBe(start);
    expect(calls(svc, shop, "payBalanceV2")).toBe(0);
    await untouched();
  });

  it("a confirmation that never reached the service (5xx): confirmed again on the next run", async () => {
    const { shop, orders, untouched, start, amount } = await batchOfTwo(svc);
    svc.setFaults({ rate5xx: 1, ops: ["addCartConfirm"] });
    await expect(shop.run()).rejects.toThrow(/addCartConfirm/);
    for (const r of await reloadAll(orders)) {
      expect(r.state).toBe("PAYING");
      // Resumed silently through the "confirming" check: no error on the timeline.
      expect(r.timeline.filter((t) => t.outcome === "error")).toEqual([]);
    }
    expect((await batchOf(orders[0]!)).state).toBe("confirming");
    svc.clearFaults();
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
    expect(balanceCents(svc, shop)).toBe(start - amount);
    expect(calls(svc, shop, "addCartConfirm")).toBe(2);
    await untouched();
  });

  it("a cart call failing (5xx) leaves the batch open; the next run carts it and pays once", async () => {
    const { shop, orders, start, amount } = await batchOfTwo(svc);
    svc.setFaults({ rate5xx: 1, ops: ["addCart"] });
    await expect(shop.run()).rejects.toThrow(/addCart/);
    for (const r of await reloadAll(orders)) {
      expect(r.state).toBe("PAYING");
      expect(r.timeline.at(-1)).toMatchObject({ step: "pay:open", outcome: "error" });
    }
    svc.clearFaults();
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    expect(balanceCents(svc, shop)).toBe(start - amount);
  });

  it("with autoPay off, an unfinished batch is still finished, and no new one started", async () => {
    const { shop, orders, start, amount } = await batchOfTwo(svc);
    await expect(shop.run(crashAfter(shop.deps, "saveGenerateParentOrder"))).rejects.toThrow();
    const waiting = await svcOrder(svc, shop);
    await updateSettings(prisma, shop.shopDomain, { autoPay: false });
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
    expect((await reload(waiting)).state).toBe("CREATED");
    expect(balanceCents(svc, shop)).toBe(start - amount);
  });

  it("an order cancelled in the shop while its batch was paying is paid and flagged", async () => {
    const { shop, orders } = await batchOfTwo(svc);
    await expect(shop.run(crashAfter(shop.deps, "saveGenerateParentOrder"))).rejects.toThrow();
    await prisma.shopOrder.update({
      where: { id: orders[0]!.id },
      data: { flag: "cancel_requested" },
    });
    await shop.run();
    const [cancelled, kept] = await reloadAll(orders);
    expect(cancelled).toMatchObject({ state: "PAID", flag: "cancelled_after_payment" });
    expect(cancelled!.reasonMessage).toContain("Cancelled in the shop while it was being paid");
    expect(kept).toMatchObject({ state: "PAID", flag: null, reasonMessage: null });
  });
});

describe("a cancel while the batch is being confirmed", () => {
  it("the order stays in its batch, flagged; paid at the service, it reads paid and flagged, never CANCELLED", async () => {
    const { shop, orders, untouched } = await batchOfTwo(svc);
    let cancelled: unknown;
    // The merchant cancels one order while the service confirms the cart (batch "confirming").
    const cancelDuring = aroundOp(shop.deps, "addCartConfirm", async (call) => {
      expect(await batchState((await reload(orders[0]!)).paymentBatchId!)).toBe("confirming");
      cancelled = await cancelOrder(shop.deps, { orderId: orders[0]!.id });
      return call();
    });
    expect(await shop.run(cancelDuring)).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    expect(cancelled).toEqual({ ok: true, state: "PAYING", note: "flagged: payment under way" });
    const [c, kept] = await reloadAll(orders);
    // The service confirmed and paid both: the app says so, and flags the cancelled one.
    for (const r of [c!, kept!]) expect(svc.order(r.svcOrderId!)!.paid).toBe(true);
    expect(c).toMatchObject({ state: "PAID", flag: "cancelled_after_payment" });
    expect(c!.paymentBatchId).toBe(kept!.paymentBatchId);
    expect(c!.reasonMessage).toContain("while it was being paid");
    expect(kept).toMatchObject({ state: "PAID", flag: null });
    await untouched();
  });
});

describe("a resumed batch and the balance", () => {
  it("a resumed parent that a trusted stored balance covers is paid without asking the service", async () => {
    const { shop, orders } = await crashed(svc, "saveGenerateParentOrder");
    const asked = calls(svc, shop, "getBalance");
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2, held: 0 });
    expect(calls(svc, shop, "getBalance")).toBe(asked);
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
  });

  it("a fresh balance that does not cover the parent holds it, asked once", async () => {
    const { shop, orders, batchId } = await crashed(svc, "saveGenerateParentOrder");
    // The stored balance is too old to trust, and the service's is short now.
    shop.clock.t += 5 * 60_000;
    svc.setBalance(shop.simAccountId, "1.00");
    const asked = calls(svc, shop, "getBalance");
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, held: 2 });
    expect(calls(svc, shop, "getBalance")).toBe(asked + 1);
    expect(calls(svc, shop, "payBalanceV2")).toBe(0);
    expect(await batchState(batchId)).toBe("parented");
    for (const r of await reloadAll(orders)) {
      expect(r).toMatchObject({ state: "HELD", reasonCode: "short_balance" });
      expect(r.reasonMessage).toContain("(1.00 USD available)");
      expect(r.timeline.find((t) => t.step === "parent")!.message).toMatch(
        /^Parent order PO\d+ generated: \d+\.\d\d USD payable\.$/,
      );
    }
  });

  it("a resumed parent and new orders in the same run: the balance goes down by each, never below what is left", async () => {
    const { shop, orders } = await crashed(svc, "saveGenerateParentOrder");
    // The stored balance is too old to trust: the run asks the service once, then counts down.
    shop.clock.t += 5 * 60_000;
    const fresh = [await svcOrder(svc, shop), await svcOrder(svc, shop, { quantity: 2 })];
    const before = balanceCents(svc, shop);
    const asked = calls(svc, shop, "getBalance");
    expect(await shop.run()).toEqual({ batchesPaid: 2, ordersPaid: 4, held: 0, failed: 0 });
    expect(calls(svc, shop, "getBalance")).toBe(asked + 1);
    for (const r of await reloadAll([...orders, ...fresh])) {
      expect(r).toMatchObject({ state: "PAID", reasonCode: null });
      expect(r.timeline.some((t) => t.outcome === "held")).toBe(false);
    }
    expect(balanceCents(svc, shop)).toBe(before - sumCents([...orders, ...fresh]));
    // The stored known balance is exactly what the service has left: never negative.
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: shop.accountId } });
    expect(account.knownBalance).toBe(svc.getBalance(shop.simAccountId));
    expect(cents(account.knownBalance)).toBeGreaterThanOrEqual(0);
  });

  it("a balance that cannot be read after a refused payment shows 0.00 available", async () => {
    const shop = await payShop(svc);
    const orders = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: "1000.00", knownBalanceAt: new Date(shop.clock.t) },
    });
    svc.setBalance(shop.simAccountId, "1.00");
    svc.setFaults({ rate5xx: 1, ops: ["getBalance"] });
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, held: 2 });
    for (const r of await reloadAll(orders)) {
      expect(r).toMatchObject({ state: "HELD", reasonCode: "short_balance" });
      expect(r.reasonMessage).toContain("(0.00 USD available)");
    }
    expect(svc.getBalance(shop.simAccountId)).toBe("1.00");
  });
});

describe("the service refuses the payment", () => {
  it("restricted balance payment: the batch fails with the service's reason, nothing charged", async () => {
    const shop = await payShop(svc);
    const orders = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
    const other = await svcOrder(svc, shop, { row: { state: "FAILED" } });
    const untouched = await bystanders(svc, [other]);
    const start = balanceCents(svc, shop);
    svc.setPaymentRestricted(shop.simAccountId, true);
    expect(await shop.run()).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 0, failed: 2 });
    const rows = await reloadAll(orders);
    const batch = await prisma.paymentBatch.findUniqueOrThrow({
      where: { id: rows[0]!.paymentBatchId! },
    });
    expect(batch.state).toBe("failed");
    expect(batch.error).toContain("balance payment is restricted");
    for (const r of rows) {
      expect(r).toMatchObject({ state: "FAILED", reasonCode: "payment_failed" });
      expect(r.reasonMessage).toBe(
        "The service refused the payment: payBalanceV2: balance payment is restricted on this account (code 1604001). Check the account, then Retry.",
      );
      expect(r.timeline.at(-1)).toMatchObject({
        step: "pay",
        outcome: "error",
        errorCode: "1604001",
        message: r.reasonMessage,
      });
      expect(r.timeline.at(-1)!.requestId).toBeTruthy();
      expect(svc.order(r.svcOrderId!)!.paid).toBe(false);
    }
    expect(balanceCents(svc, shop)).toBe(start);
    await untouched();
  });
});

describe("what a resumed batch must not pay for", () => {
  it("orders cancelled while their batch waited in the cart: nothing paid, the batch fails", async () => {
    const { shop, orders, batchId } = await crashed(svc, "addCart");
    for (const o of orders) await cancelOrder(shop.deps, { orderId: o.id }, { source: "shop" });
    const start = balanceCents(svc, shop);
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, batchesPaid: 0 });
    const batch = await prisma.paymentBatch.findUniqueOrThrow({ where: { id: batchId } });
    expect(batch).toMatchObject({ state: "failed", error: "no order left in the batch" });
    for (const r of await reloadAll(orders)) expect(r.state).toBe("CANCELLED");
    expect(calls(svc, shop, "addCart")).toBe(1);
    expect(balanceCents(svc, shop)).toBe(start);
  });

  it("a paying batch the service does not know is never marked paid", async () => {
    const shop = await payShop(svc);
    const ghost = await svcOrder(svc, shop, {
      row: { svcOrderId: "SO-UNKNOWN-1" },
    });
    const batch = await leftAt(shop, "paying", [ghost.id], {
      shipmentOrderId: "SH-UNKNOWN-1",
      amount: ghost.amount,
    });
    const result = await shop.run();
    expect(result.ordersPaid).toBe(0);
    const r = await reload(ghost);
    expect(r.state).toBe("FAILED");
    expect(r.reasonMessage).toContain("Refused by the service");
    expect(await batchState(batch.id)).toBe("failed");
  });

  it("a paying batch found partly paid pays the rest, once", async () => {
    const shop = await payShop(svc);
    const [a, b] = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
    // a was paid in a parent of its own; b is confirmed in another, unpaid.
    await shop.client.orders.addCart([a.svcOrderId!]);
    const ca = await shop.client.orders.addCartConfirm([a.svcOrderId!]);
    await shop.client.payment.payBalanceV2(ca.shipmentsId!);
    await shop.client.orders.addCart([b.svcOrderId!]);
    const cb = await shop.client.orders.addCartConfirm([b.svcOrderId!]);
    const start = balanceCents(svc, shop);
    const batch = await leftAt(shop, "paying", [a.id, b.id], { shipmentOrderId: cb.shipmentsId });
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    expect(svc.order(b.svcOrderId!)!.paid).toBe(true);
    expect(balanceCents(svc, shop)).toBe(start - cents(b.amount));
    for (const r of await reloadAll([a, b])) expect(r.state).toBe("PAID");
    expect(await batchState(batch.id)).toBe("paid");
  });

  it("a confirmation whose orders the service does not know: the merchant is asked", async () => {
    const shop = await payShop(svc);
    const ghost = await svcOrder(svc, shop, { row: { svcOrderId: "SO-UNKNOWN-2" } });
    const batch = await leftAt(shop, "confirming", [ghost.id]);
    expect(await shop.run()).toMatchObject({ failed: 1 });
    expect((await reload(ghost)).reasonCode).toBe("confirm_unknown");
    expect(await batchState(batch.id)).toBe("failed");
    expect(calls(svc, shop, "addCartConfirm")).toBe(0);
  });
});

describe("a partial batch while creates are in flight", () => {
  const window = 600;
  async function shopWithPlaceJob(job: {
    state?: string;
    runAtMs?: number;
    otherShop?: boolean;
    kind?: string;
  }) {
    const shop = await payShop(svc, {
      settings: { payBatchSize: 5, payBatchWindowSeconds: window },
    });
    const j = await enqueue(prisma, {
      kind: job.kind ?? JOB.place,
      idempotencyKey: `place-${shop.shopDomain}`,
      shopDomain: job.otherShop ? "someone-else.myshopify.com" : shop.shopDomain,
      runAt: new Date(Date.now() + (job.runAtMs ?? -1000)),
    });
    if (job.state) await prisma.job.update({ where: { id: j.id }, data: { state: job.state } });
    return shop;
  }

  it.each([
    ["due", {}],
    ["running", { state: "running", runAtMs: 3_600_000 }],
    // An order due at once is placed in its delivery's job (of the shop's trigger topic).
    ["an order delivery, due", { kind: "shopify:orders/paid" }],
  ])("waits while a place job of the shop is %s", async (_, job) => {
    const shop = await shopWithPlaceJob(job);
    const a = await svcOrder(svc, shop, { placedAt: new Date(shop.clock.t - 59_000) });
    const b = await svcOrder(svc, shop, { placedAt: new Date(shop.clock.t) });
    const untouched = await bystanders(svc, [a, b]);
    const result = await shop.run();
    expect(result).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0, deferred: 2 });
    expect(calls(svc, shop, "addCart")).toBe(0);
    await untouched();
    const jobs = await prisma.job.findMany({
      where: { kind: JOB.pay, shopDomain: shop.shopDomain, state: "available" },
    });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.idempotencyKey).toContain(":deferred:");
    // The follow-up comes after the batch window (600 s), not at once.
    expect(jobs[0]!.runAt.getTime() - Date.now()).toBeGreaterThan(300_000);
    expect(jobs[0]!.runAt.getTime() - Date.now()).toBeLessThanOrEqual(window * 1000);
  });

  it("with a window shorter than 5 s, the follow-up comes 5 s on", async () => {
    const shop = await payShop(svc, { settings: { payBatchSize: 5, payBatchWindowSeconds: 1 } });
    await enqueue(prisma, {
      kind: JOB.place,
      idempotencyKey: `place-short-${shop.shopDomain}`,
      shopDomain: shop.shopDomain,
      runAt: new Date(Date.now() - 1000),
    });
    await svcOrder(svc, shop, { placedAt: new Date(shop.clock.t) });
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, deferred: 1 });
    const [job] = await prisma.job.findMany({
      where: { kind: JOB.pay, shopDomain: shop.shopDomain, state: "available" },
    });
    expect(job!.runAt.getTime() - Date.now()).toBeGreaterThan(3_000);
    expect(job!.runAt.getTime() - Date.now()).toBeLessThanOrEqual(5_000);
  });

  it.each([
    ["a place job not yet due", { runAtMs: 3_600_000 }, 1000],
    ["another shop's place job", { otherShop: true }, 1000],
    ["a finished place job", { state: "completed" }, 1000],
    ["a delivery of a topic that is not the trigger", { kind: "shopify:orders/create" }, 1000],
    ["the oldest order waited a minute", {}, 60_000],
  ])("pays at once with %s", async (_, job, age) => {
    const shop = await shopWithPlaceJob(job);
    const a = await svcOrder(svc, shop, { placedAt: new Date(shop.clock.t - age) });
    const b = await svcOrder(svc, shop, { placedAt: new Date(shop.clock.t) });
    const result = await shop.run();
    expect(result).toEqual({ batchesPaid: 1, ordersPaid: 2, held: 0, failed: 0 });
    expect((await reloadAll([a, b])).map((r) => r.state)).toEqual(["PAID", "PAID"]);
  });

  it("an order without a placing time does not make the batch wait", async () => {
    const shop = await shopWithPlaceJob({});
    const a = await svcOrder(svc, shop, { placedAt: null });
    expect(await shop.run()).toMatchObject({ ordersPaid: 1 });
    expect((await reload(a)).state).toBe("PAID");
  });

  it("a window of 0 or a full batch does not wait", async () => {
    const shop = await shopWithPlaceJob({});
    await updateSettings(prisma, shop.shopDomain, { payBatchSize: 2 });
    const full = [await svcOrder(svc, shop), await svcOrder(svc, shop)];
    expect(await shop.run()).toMatchObject({ ordersPaid: 2 });
    await updateSettings(prisma, shop.shopDomain, { payBatchSize: 5, payBatchWindowSeconds: 0 });
    const one = await svcOrder(svc, shop);
    expect(await shop.run()).toMatchObject({ ordersPaid: 1 });
    expect((await reloadAll([...full, one])).map((r) => r.state)).toEqual(["PAID", "PAID", "PAID"]);
  });
});

describe("a run and what it leaves alone", () => {
  it("finished batches and other accounts' batches are left as they are; logs carry the shop", async () => {
    const mine = await payShop(svc);
    const paid = await svcOrder(svc, mine);
    await mine.run();
    const paidBatch = await batchOf(paid);
    const ghost = await svcOrder(svc, mine, { row: { svcOrderId: "SO-UNKNOWN-3" } });
    const failedBatch = await leftAt(mine, "failed", [ghost.id], { error: "earlier" });
    const other = await crashed(svc, "saveGenerateParentOrder");
    const before = await prisma.paymentBatch.findMany({
      where: { id: { in: [paidBatch.id, failedBatch.id, other.batchId] } },
      orderBy: { id: "asc" },
    });
    const fresh = await svcOrder(svc, mine);
    const context = await withLogContext({ jobId: "job-1" }, async () => {
      expect(await mine.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 1 });
      return currentLogContext();
    });
    expect(context).toEqual({ jobId: "job-1", shop: mine.shopDomain });
    expect((await reload(fresh)).state).toBe("PAID");
    const after = await prisma.paymentBatch.findMany({
      where: { id: { in: [paidBatch.id, failedBatch.id, other.batchId] } },
      orderBy: { id: "asc" },
    });
    expect(after).toEqual(before);
    expect(calls(svc, other.shop, "payBalanceV2")).toBe(0);
  });

  it("a known balance without its time is not trusted: the service is asked", async () => {
    const shop = await payShop(svc);
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: "1.00", knownBalanceAt: null },
    });
    const o = await svcOrder(svc, shop);
    expect(await shop.run()).toMatchObject({ ordersPaid: 1, held: 0 });
    expect((await reload(o)).state).toBe("PAID");
    expect(calls(svc, shop, "getBalance")).toBe(1);
  });

  it("unfinished batches resume oldest first: the balance goes to the older one", async () => {
    const shop = await payShop(svc);
    // Two batches confirmed at the service by an earlier run, the older dearer.
    const older = await svcOrder(svc, shop, { quantity: 3 });
    const newer = await svcOrder(svc, shop);
    for (const [o, age] of [
      [older, 20_000],
      [newer, 10_000],
    ] as const) {
      await shop.client.orders.addCart([o.svcOrderId!]);
      const c = await shop.client.orders.addCartConfirm([o.svcOrderId!]);
      await leftAt(shop, "confirmed", [o.id], {
        shipmentOrderId: c.shipmentsId,
        createdAt: new Date(Date.now() - age),
      });
    }
    expect(cents(newer.amount)).toBeLessThan(cents(older.amount));
    svc.setBalance(shop.simAccountId, older.amount!);
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, held: 1 });
    expect((await reload(older)).state).toBe("PAID");
    expect((await reload(newer)).state).toBe("HELD");
  });
});

describe("more of the balance", () => {
  it("an order the balance does not cover is held once while cheaper ones behind it are paid", async () => {
    const shop = await payShop(svc, { settings: { payBatchSize: 2 } });
    const t = shop.clock.t;
    const dear = await svcOrder(svc, shop, { quantity: 5, placedAt: new Date(t - 3000) });
    const b = await svcOrder(svc, shop, { placedAt: new Date(t - 2000) });
    const c = await svcOrder(svc, shop, { placedAt: new Date(t - 1000) });
    svc.setBalance(shop.simAccountId, money(sumCents([b, c])));
    expect(await shop.run()).toMatchObject({ batchesPaid: 2, ordersPaid: 2, held: 1 });
    expect((await reloadAll([dear, b, c])).map((r) => r.state)).toEqual(["HELD", "PAID", "PAID"]);
  });

  it("a resumed parent with a stale stored balance: asked, covered, paid; short: never paid", async () => {
    const { shop, orders } = await crashed(svc, "saveGenerateParentOrder");
    shop.clock.t += 5 * 60_000;
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");

    const again = await crashed(svc, "saveGenerateParentOrder");
    // Trusted stored balance says no, the service says no: held without a payment call.
    await prisma.svcAccount.update({
      where: { id: again.shop.accountId },
      data: { knownBalance: "0.50", knownBalanceAt: new Date(again.shop.clock.t) },
    });
    svc.setBalance(again.shop.simAccountId, "1.00");
    expect(await again.shop.run()).toMatchObject({ ordersPaid: 0, held: 2 });
    expect(calls(svc, again.shop, "payBalanceV2")).toBe(0);
  });

  it("orders shipped or delivered at the service, refused at the cart, are adopted as paid", async () => {
    const shop = await payShop(svc);
    const shipped = await svcOrder(svc, shop);
    const delivered = await svcOrder(svc, shop);
    for (const o of [shipped, delivered]) await paidAtService(shop, o.svcOrderId!);
    svc.ship(shipped.svcOrderId!, { trackNumber: "T-1" });
    svc.ship(delivered.svcOrderId!, { trackNumber: "T-2" });
    svc.deliver(delivered.svcOrderId!);
    expect(await shop.run()).toMatchObject({ ordersPaid: 2, failed: 0 });
    for (const r of await reloadAll([shipped, delivered])) expect(r.state).toBe("PAID");
  });
});

describe("warehouse modes that need a label after payment (issue 35)", () => {
  /** Settings an older app stored (the settings now refuse modes 1 and 3). */
  const storeMode = async (shop: { shopDomain: string }, mode: number) => {
    const s = await prisma.shop.findUniqueOrThrow({ where: { domain: shop.shopDomain } });
    await prisma.shop.update({
      where: { domain: shop.shopDomain },
      data: { settings: { ...(s.settings as object), shopLogisticsType: mode } as object },
    });
  };

  it("a shop on mode 1 or 3: its waiting orders are held with the reason, never batched; back on merchant logistics they are paid", async () => {
    for (const mode of [1, 3]) {
      const shop = await payShop(svc, { balance: "1000.00" });
      await storeMode(shop, mode);
      const t = shop.clock.t;
      const a = await svcOrder(svc, shop, { placedAt: new Date(t - 3000) });
      const b = await svcOrder(svc, shop, {
        placedAt: new Date(t - 2000),
        row: { state: "HELD", reasonCode: "short_balance", reasonMessage: "short" },
      });
      const idle = [
        await svcOrder(svc, shop, { row: { state: "HELD", reasonCode: "merchant_hold" } }),
        await svcOrder(svc, shop, { row: { state: "CREATED", paymentBatchId: "other" } }),
        await row(shop, { state: "CREATED", amount: "3.00" }),
      ];
      const untouched = await bystanders(svc, idle);

      expect(await shop.run()).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 2, failed: 0 });
      const why = labelModeReason({ shopLogisticsType: mode })!;
      for (const r of await reloadAll([a, b])) {
        expect(r).toMatchObject({
          state: "HELD",
          reasonCode: "warehouse_mode",
          reasonMessage: why,
          paymentBatchId: null,
        });
        expect(r.timeline.map((x) => [x.step, x.outcome, x.errorCode, x.message])).toEqual([
          ["pay", "held", "warehouse_mode", why],
        ]);
        expect(svc.order(r.svcOrderId!)!.paid).toBe(false);
      }
      for (const op of ["getBalance", ...PAY_OPS]) expect(calls(svc, shop, op)).toBe(0);
      // Run again: still held, told once.
      expect(await shop.run()).toEqual({ batchesPaid: 0, ordersPaid: 0, held: 0, failed: 0 });
      expect((await reload(a)).timeline).toHaveLength(1);
      await untouched();

      // Merchant logistics: the settings save re-checks them (a pay run), the run pays what the
      // balance covers and holds the rest as short (told now).
      expect((await updateSettings(prisma, shop.shopDomain, { shopLogisticsType: 2 })).ok).toBe(
        true,
      );
      expect(await recheckHeld(prisma, shop.shopDomain, SETTINGS_CAUSES, "mode")).toBe(2);
      const jobs = await prisma.job.findMany({
        where: { kind: JOB.pay, shopDomain: shop.shopDomain, state: "available" },
      });
      expect(jobs).toHaveLength(1);
      svc.setBalance(shop.simAccountId, a.amount!);
      expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 1, held: 1 });
      const [pa, pb] = await reloadAll([a, b]);
      expect(pa).toMatchObject({ state: "PAID", reasonCode: null, reasonMessage: null });
      expect(pb).toMatchObject({ state: "HELD", reasonCode: "short_balance" });
      expect(pb!.timeline.map((x) => x.errorCode)).toEqual(["warehouse_mode", "short_balance"]);
      svc.setBalance(shop.simAccountId, "1000.00");
      expect(await shop.run()).toMatchObject({ ordersPaid: 1 });
      expect((await reload(b)).state).toBe("PAID");
      await untouched();
    }
  });

  it("with automatic payment off, only the orders the merchant asked to pay are held", async () => {
    const shop = await payShop(svc, { settings: { autoPay: false } });
    await storeMode(shop, 3);
    const asked = await svcOrder(svc, shop, { row: { payRequestedAt: new Date() } });
    const waiting = await svcOrder(svc, shop);
    expect(await shop.run()).toMatchObject({ ordersPaid: 0, held: 1 });
    const [a, w] = await reloadAll([asked, waiting]);
    expect(a).toMatchObject({ state: "HELD", reasonCode: "warehouse_mode" });
    expect(w).toMatchObject({ state: "CREATED", reasonCode: null });
    expect(w!.timeline).toHaveLength(0);
  });
});
