/**
 * Payment batches when things go wrong, run directly against the service simulator: the payment
 * call failing (5xx), timing out with the payment taken (reply dropped or late), a balance spent
 * outside the app, and a crash right after each step of the batch. The next run resumes: every
 * order of the batch paid exactly once (the balance down by exactly the batch), nothing else
 * touched.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { updateSettings } from "../../app/settings.server";
import { type ServiceSim, startServiceSim } from "../sim/service/index";
import {
  balanceCents,
  bystanders,
  calls,
  cents,
  crashAfter,
  payShop,
  prisma,
  reload,
  reloadAll,
  sumCents,
  svcOrder,
} from "./pay-helpers";

let svc: ServiceSim;
beforeAll(async () => {
  svc = await startServiceSim();
});
afterAll(async () => svc?.close());
afterEach(() => svc.clearFaults());

const money = (c: number) => (c / 100).toFixed(2);

/** A shop with two waiting orders, and bystanders: a failed order of it and another shop's. */
async function batchOfTwo(o: Parameters<typeof payShop>[1] = {}) {
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

const batchOf = async (o: { id: string }) => {
  const r = await reload(o);
  return prisma.paymentBatch.findUniqueOrThrow({ where: { id: r.paymentBatchId! } });
};

describe("the payment call", () => {
  it("fails with a 5xx: nothing paid, the batch waits; the next run pays it once", async () => {
    const { shop, orders, untouched, start, amount } = await batchOfTwo();
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
    const { shop, orders, untouched, start, amount } = await batchOfTwo();
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

  it("answers late, after the client gave up: confirmed by a query, paid once", async () => {
    const { shop, orders, start, amount } = await batchOfTwo({ clientTimeoutMs: 1500 });
    svc.setFaults({ rateTimeout: 1, ops: ["payBalanceV2"], timeoutMs: 3000 });
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
    expect(balanceCents(svc, shop)).toBe(start - amount);
    expect(calls(svc, shop, "payBalanceV2")).toBe(1);
  });

  it("times out with the balance short (not paid): the next run asks, then holds the batch", async () => {
    const { shop, orders } = await batchOfTwo();
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
    const { shop, orders, untouched, amount } = await batchOfTwo();
    // A trusted known balance that is no longer true.
    await prisma.svcAccount.update({
      where: { id: shop.accountId },
      data: { knownBalance: "1000.00", knownBalanceAt: new Date(shop.clock.t) },
    });
    svc.setBalance(shop.simAccountId, "1.00");
    const result = await shop.run();
    expect(result).toEqual({
      batchesPaid: 0,
      ordersPaid: 0,
      held: 2,
      failed: 0,
      recheckAt: new Date(shop.clock.t + 60_000),
    });
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
      const { shop, orders, untouched, start, amount } = await batchOfTwo();
      await expect(shop.run(crashAfter(shop.deps, op))).rejects.toThrow(`crash after ${op}`);
      for (const r of await reloadAll(orders)) expect(r.state).toBe("PAYING");
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
    const { shop, orders, untouched, start } = await batchOfTwo();
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
    const { shop, orders, untouched, start, amount } = await batchOfTwo();
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
    const { shop, orders, start, amount } = await batchOfTwo();
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
    const { shop, orders, start, amount } = await batchOfTwo();
    await expect(shop.run(crashAfter(shop.deps, "saveGenerateParentOrder"))).rejects.toThrow();
    const waiting = await svcOrder(svc, shop);
    await updateSettings(prisma, shop.shopDomain, { autoPay: false });
    expect(await shop.run()).toMatchObject({ batchesPaid: 1, ordersPaid: 2 });
    for (const r of await reloadAll(orders)) expect(r.state).toBe("PAID");
    expect((await reload(waiting)).state).toBe("CREATED");
    expect(balanceCents(svc, shop)).toBe(start - amount);
  });

  it("an order cancelled in the shop while its batch was paying is paid and flagged", async () => {
    const { shop, orders } = await batchOfTwo();
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
