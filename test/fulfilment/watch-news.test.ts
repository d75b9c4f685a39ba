/**
 * More of what the reconciler's tracking passes read (app/fulfilment/reconcile/passes-track):
 * in one query batch each order goes by its own record (one paid in the service's console among
 * unpaid ones is the only one marked paid), and news without a tracking number (the service
 * cancelled the order) is tracked but never counted as a lost webhook.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import {
  CREATED_WATCH_AFTER_MS,
  reconcileAccount,
} from "../../app/fulfilment/reconcile/index.server";
import { type Harness, prisma, startHarness } from "./harness";
import { paidOrders, waitingTrackJobs } from "./track-helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    shopDomain: "watch-news.myshopify.com",
    balance: "500.00",
    settings: { autoPay: false },
  });
  h.svc.setFaults({ dropWebhook: 1 });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await prisma.job.deleteMany({ where: { state: "available" } });
  await prisma.shopOrder.updateMany({
    where: { shopDomain: h.shopDomain },
    data: { state: "CANCELLED" },
  });
});

const later = (ahead: number, o: Partial<FulfilmentDeps["options"]> = {}): FulfilmentDeps => ({
  ...h.deps,
  clock: { now: () => Date.now() + ahead },
  options: { ...h.deps.options, ...o },
});

describe("created orders asked about together", () => {
  it.each([
    ["the older", 0],
    ["the newer", 1],
  ])("only the one paid in the console (%s of two) is marked paid", async (_, paidIndex) => {
    const rows = [];
    for (let i = 0; i < 2; i++) {
      const p = await h.connectedProduct(`Watch ${Date.now()}-${i}`, "10.00");
      const placed = await h.order([{ product: p, quantity: 1 }]);
      await h.settle();
      const row = await h.row(placed.legacyId);
      expect(row.state).toBe("CREATED");
      rows.push(row);
    }
    // Both waited long enough; the first is the older (asked about first, its record first).
    for (const [i, r] of rows.entries()) {
      await prisma.shopOrder.update({
        where: { id: r.id },
        data: { updatedAt: new Date(Date.now() - CREATED_WATCH_AFTER_MS - 10_000 + i) },
      });
    }
    // Paid in the service's console: cart, confirm, parent, pay.
    const id = rows[paidIndex]!.svcOrderId!;
    await h.client.orders.addCart([id]);
    const c = await h.client.orders.addCartConfirm([id]);
    await h.client.orders.saveGenerateParentOrder(c.shipmentsId!);
    await h.client.payment.payBalanceV2(c.shipmentsId!);
    await reconcileAccount(later(0, { queryBatchSize: 2 }), h.accountId);
    const after = await Promise.all(
      rows.map((r) => prisma.shopOrder.findUniqueOrThrow({ where: { id: r.id } })),
    );
    expect(after.map((r) => r.state)).toEqual(
      paidIndex === 0 ? ["PAID", "CREATED"] : ["CREATED", "PAID"],
    );
    expect(await waitingTrackJobs(rows[1 - paidIndex]!.id)).toEqual([]);
    expect(await waitingTrackJobs(rows[paidIndex]!.id)).toHaveLength(1);
  });
});

describe("news without a tracking number", () => {
  it("an order the service cancelled is tracked, and is no lost webhook", async () => {
    const [cancelled, shipped] = await paidOrders(h, 2, "Watch news");
    h.svc.endOrder(cancelled!.svcOrderId, "CANCELLED");
    h.svc.ship(shipped!.svcOrderId, { trackNumber: "WATCH-1" });
    const r = await reconcileAccount(later(20 * 60_000), h.accountId);
    // Both have news; only the tracking no webhook told of counts as a gap.
    expect(r).toMatchObject({ trackJobs: 2, gaps: 1 });
    expect(await waitingTrackJobs(cancelled!.id)).toHaveLength(1);
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
    expect(account.webhookGaps).toBe(1);
  });
});
