/**
 * `transition` (app/orders/transition.server.ts) on the test database. Orders named by id move in
 * one statement with their timeline entries; a filter, or a column it does not write itself (the
 * recipient, JSON), goes through Prisma. Both must do the same: move only orders still in a
 * `from` state, return the ids that moved, write the columns given (times as UTC, numbers,
 * text, null), leave the reason alone when it is not named, write one entry per moved order and
 * none for an order that did not move.
 */
import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { transition } from "../../app/orders/transition.server";

let seq = 0;
const SHOP = "transition-test.myshopify.com";

async function order(state: string, extra: { reasonCode?: string; reasonMessage?: string } = {}) {
  await prisma.shop.upsert({ where: { domain: SHOP }, create: { domain: SHOP }, update: {} });
  const n = String(9100 + ++seq);
  return prisma.shopOrder.create({
    data: { shopDomain: SHOP, shopifyOrderId: n, orderNumber: `T-${n}`, state, ...extra },
  });
}

const entries = (orderId: string) =>
  prisma.timelineEntry.findMany({ where: { orderId }, orderBy: { id: "asc" } });

describe("an order moved by id", () => {
  it("moves from a `from` state with its columns and one entry, and not from another", async () => {
    const a = await order("RECEIVED", { reasonCode: "x", reasonMessage: "old" });
    const b = await order("PAID");
    const placedAt = new Date("2026-11-28T21:07:05.123Z");
    const moved = await transition(prisma, [a.id, b.id], {
      to: "CREATED",
      from: ["RECEIVED", "HELD"],
      reason: null,
      set: { svcOrderId: "SVC-1", amount: "12.50", placeAttempt: 2, placedAt, flag: null },
      timeline: { step: "create", outcome: "ok", message: "Created.", errorCode: 7 },
    });
    expect(moved).toEqual([a.id]);
    const after = await prisma.shopOrder.findUniqueOrThrow({ where: { id: a.id } });
    expect(after).toMatchObject({
      state: "CREATED",
      reasonCode: null,
      reasonMessage: "old",
      svcOrderId: "SVC-1",
      amount: "12.50",
      placeAttempt: 2,
      flag: null,
    });
    expect(after.placedAt?.toISOString()).toBe(placedAt.toISOString());
    expect(after.updatedAt.getTime()).toBeGreaterThan(a.updatedAt.getTime() - 1);
    const [entry, ...more] = await entries(a.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({
      step: "create",
      outcome: "ok",
      message: "Created.",
      errorCode: "7",
      requestId: null,
    });
    expect(Math.abs(entry!.at.getTime() - Date.now())).toBeLessThan(60_000);
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: b.id } })).state).toBe("PAID");
    expect(await entries(b.id)).toEqual([]);
  });

  it("from any state when `from` is left out; an entry's own time is kept; none with a null entry", async () => {
    const a = await order("PAID");
    const at = new Date("2026-01-02T03:04:05.006Z");
    expect(
      await transition(prisma, a.id, {
        to: "FULFILLED",
        message: "shipped",
        set: { fulfilledAt: at },
        timeline: { step: "fulfil", outcome: "info", at },
      }),
    ).toEqual([a.id]);
    const [entry] = await entries(a.id);
    expect(entry!.at.toISOString()).toBe(at.toISOString());
    expect(entry!.message).toBeNull();
    const row = await prisma.shopOrder.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.fulfilledAt?.toISOString()).toBe(at.toISOString());
    expect(row.reasonMessage).toBe("shipped");
    expect(await transition(prisma, a.id, { to: "DELIVERED", timeline: null })).toEqual([a.id]);
    expect(await entries(a.id)).toHaveLength(1);
    expect(await transition(prisma, [], { to: "PAID", timeline: null })).toEqual([]);
  });

  it("joins the caller's transaction: rolled back with it, entry and all", async () => {
    const a = await order("RECEIVED");
    await expect(
      prisma.$transaction(async (tx) => {
        await transition(tx, a.id, { to: "HELD", timeline: { step: "hold", outcome: "held" } });
        throw new Error("the caller fails after the move");
      }),
    ).rejects.toThrow("the caller fails");
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: a.id } })).state).toBe(
      "RECEIVED",
    );
    expect(await entries(a.id)).toEqual([]);
  });
});

describe("orders moved through Prisma", () => {
  it("a filter target moves the matching orders with an entry each", async () => {
    const a = await order("CREATED");
    await prisma.shopOrder.update({ where: { id: a.id }, data: { paymentBatchId: "batch-t1" } });
    const moved = await transition(
      prisma,
      { paymentBatchId: "batch-t1" },
      { to: "PAID", from: ["CREATED"], timeline: { step: "pay", outcome: "ok" } },
    );
    expect(moved).toEqual([a.id]);
    expect(await entries(a.id)).toHaveLength(1);
  });

  it("a column the statement does not write (the recipient) is written all the same", async () => {
    const a = await order("HELD");
    const recipient = { name: "Ada", countryCode: "FR" };
    const moved = await transition(prisma, a.id, {
      to: "RECEIVED",
      from: ["HELD"],
      set: { recipient },
      timeline: { step: "repair", outcome: "info" },
    });
    expect(moved).toEqual([a.id]);
    const row = await prisma.shopOrder.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.recipient).toEqual(recipient);
    expect(row.state).toBe("RECEIVED");
    expect(await entries(a.id)).toHaveLength(1);
  });
});
