/**
 * What the Disputes pages read (app/disputes/page.server.ts), on rows as the sync and the use
 * cases leave them: the list's views, search, status filter and pages; one dispute with its
 * messages, order and refund parts; the disputes of an order.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "@prisma/client";
import { prisma } from "../../app/db.server";
import {
  DISPUTE_VIEWS,
  disputeDetail,
  disputesOfOrder,
  listDisputes,
  unreadDisputes,
} from "../../app/disputes/page.server";

const SHOP = "disputes-page.myshopify.com";
const OTHER = "disputes-page-other.myshopify.com";
const T0 = Date.UTC(2026, 5, 1);
let seq = 0;
let orderA: string;
let orderB: string;

async function dispute(over: Partial<Prisma.DisputeUncheckedCreateInput> = {}) {
  const n = ++seq;
  return prisma.dispute.create({
    data: {
      shopDomain: SHOP,
      svcAccountId: "acct",
      svcDisputeId: String(700000 + n),
      status: "Pending processing",
      svcCreatedAt: new Date(T0 + n * 60_000),
      ...over,
    },
  });
}
const list = (q: string, shop = SHOP) => listDisputes(prisma, shop, new URLSearchParams(q));

beforeAll(async () => {
  orderA = (
    await prisma.shopOrder.create({
      data: {
        shopDomain: SHOP,
        shopifyOrderId: "5001",
        shopifyOrderName: "#1001",
        orderNumber: "page-1001",
        svcOrderId: "SO-AAA",
        amount: "42.50",
      },
    })
  ).id;
  orderB = (
    await prisma.shopOrder.create({
      data: { shopDomain: SHOP, shopifyOrderId: "5002", orderNumber: "page-1002" },
    })
  ).id;
});

describe("listDisputes", () => {
  let rows: Awaited<ReturnType<typeof dispute>>[];
  beforeAll(async () => {
    rows = [
      await dispute({
        orderId: orderA,
        svcOrderId: "SO-AAA",
        orderNumber: "SVC-N-1",
        reason: "Item damaged",
        expectType: 1,
        money: "12.00",
        unread: true,
        lastMessageAt: new Date(T0 + 3600_000),
      }),
      await dispute({ orderId: orderB, status: "Finance review", expectType: 2 }),
      await dispute({ status: "Completed", finallyDeal: 1, reason: "Wrong item" }),
      await dispute({ status: "On hold", cancelledAt: new Date(), svcOrderId: "SO-BBB" }),
      await dispute({ svcDisputeId: "pending:bd-x", status: "Sent", orderId: orderA }),
    ];
    await dispute({ shopDomain: OTHER, unread: true, status: "Other shop" });
  });

  it("lists the shop's disputes, newest first, as the page shows them", async () => {
    const all = await list("");
    expect(all.filter).toEqual({ view: "all", q: "", page: 1, status: "" });
    expect(all.total).toBe(5);
    expect(all.pages).toBe(1);
    expect(all.statuses).toEqual([
      "Completed",
      "Finance review",
      "On hold",
      "Pending processing",
      "Sent",
    ]);
    expect(all.viewCounts).toEqual({ all: 5, unread: 1, open: 3, closed: 2 });
    expect(all.disputes.map((d) => d.id)).toEqual(rows.map((r) => r.id).reverse());
    const [pending, cancelled, completed, reissue, first] = all.disputes;
    expect(first).toEqual({
      id: rows[0]!.id,
      svcDisputeId: rows[0]!.svcDisputeId,
      orderId: orderA,
      orderName: "#1001",
      orderNumber: "SVC-N-1",
      reason: "Item damaged",
      status: "Pending processing",
      closed: false,
      outcome: null,
      expect: "Refund",
      money: "12.00",
      unread: true,
      openedAt: rows[0]!.svcCreatedAt.toISOString(),
      lastMessageAt: new Date(T0 + 3600_000).toISOString(),
    });
    expect(pending).toMatchObject({ svcDisputeId: null, orderName: "#1001", closed: false });
    expect(cancelled).toMatchObject({ closed: true, orderName: null, expect: null });
    expect(completed).toMatchObject({ closed: true, outcome: "refunded", lastMessageAt: null });
    expect(reissue).toMatchObject({ expect: "Reissue", orderName: "#5002", unread: false });
  });

  it("views, search and status narrow it; the counts stay the shop's", async () => {
    const ids = async (q: string) => (await list(q)).disputes.map((d) => d.id);
    const r = rows.map((x) => x.id);
    expect(await ids("view=unread")).toEqual([r[0]]);
    expect(await ids("view=open")).toEqual([r[4], r[1], r[0]]);
    expect(await ids("view=closed")).toEqual([r[3], r[2]]);
    expect((await list("view=nonsense")).filter.view).toBe("all");
    expect(await ids("view=nonsense")).toHaveLength(5);
    expect(await ids("status=Completed")).toEqual([r[2]]);
    expect(await ids("view=open&status=Completed")).toEqual([]);
    expect((await list("view=closed")).viewCounts).toEqual({
      all: 5,
      unread: 1,
      open: 3,
      closed: 2,
    });
    // By the shop order's name (with or without #), the service's ids and numbers, the reason
    // and the status.
    expect(await ids("q=%231001")).toEqual([r[4], r[0]]);
    expect(await ids("q=%20%23100")).toEqual([r[4], r[0]]);
    expect(await ids(`q=${rows[2]!.svcDisputeId}`)).toEqual([r[2]]);
    expect(await ids("q=svc-n")).toEqual([r[0]]);
    expect(await ids("q=%23SVC-N")).toEqual([r[0]]);
    expect(await ids("q=SO-BBB")).toEqual([r[3]]);
    expect(await ids("q=wrong")).toEqual([r[2]]);
    expect(await ids("q=finance")).toEqual([r[1]]);
    expect(await ids("q=%23finance")).toEqual([]);
    expect(await ids("q=other%20shop")).toEqual([]);
    expect((await list(`q=${"z".repeat(150)}`)).filter.q).toHaveLength(100);
    expect((await list(`status=${"s".repeat(150)}`)).filter.status).toHaveLength(100);
    expect((await list("q=%231001")).total).toBe(2);
  });

  it("another shop sees only its own", async () => {
    const other = await list("", OTHER);
    expect(other.total).toBe(1);
    expect(other.statuses).toEqual(["Other shop"]);
    expect(other.viewCounts).toEqual({ all: 1, unread: 1, open: 1, closed: 0 });
    expect(await unreadDisputes(prisma, SHOP)).toBe(1);
    expect(await unreadDisputes(prisma, OTHER)).toBe(1);
    expect(await unreadDisputes(prisma, "none.myshopify.com")).toBe(0);
    expect(DISPUTE_VIEWS).toEqual(["all", "unread", "open", "closed"]);
  });

  it("pages by 50, in a stable order", async () => {
    const shop = "disputes-page-many.myshopify.com";
    const at = new Date(T0);
    for (let i = 0; i < 51; i++)
      await dispute({ shopDomain: shop, svcDisputeId: `m-${i}`, svcCreatedAt: at });
    const p1 = await list("", shop);
    expect([p1.total, p1.pages, p1.disputes.length]).toEqual([51, 2, 50]);
    const ids = p1.disputes.map((d) => d.id);
    expect([...ids].sort()).toEqual(ids);
    const p2 = await list("page=2", shop);
    expect(p2.filter.page).toBe(2);
    expect(p2.disputes).toHaveLength(1);
    expect(ids).not.toContain(p2.disputes[0]!.id);
    for (const [q, page] of [
      ["page=abc", 1],
      ["page=0", 1],
      ["page=-3", 1],
      ["page=99999", 10000],
    ] as const) {
      expect((await list(q, shop)).filter.page).toBe(page);
    }
    expect((await list("page=abc", shop)).disputes).toHaveLength(50);
    expect((await list("", "empty.myshopify.com")).pages).toBe(1);
  });
});

describe("disputeDetail", () => {
  it("shows one dispute of the shop with its order, parts, lines and messages; opening marks it read", async () => {
    const d = await dispute({
      orderId: orderA,
      svcOrderId: "SO-AAA",
      status: "Pending review",
      reason: "Item damaged",
      expectType: 2,
      money: "12.00",
      replacementAmount: "12.00",
      unread: true,
      refundDetails: [
        { type: "PRODUCT_COST", name: "Product cost", amount: "12.00" },
        { type: "SHIPPING_COST", name: "Shipping cost", amount: "0.00" },
        { type: "TAX", name: "Taxes", amount: null },
        { type: "X", amount: "3.00" },
        null,
        { name: "Fee", amount: 1.5 },
      ],
      lines: [
        { productName: "Mug", price: "12.00", quantity: 2, image: "i.png", supplierName: "S" },
        { lineItemId: "L2", price: 3 },
        {},
        null,
      ],
      messages: {
        create: [
          { messageId: "M2", fromSupport: true, at: new Date(T0 + 2000), text: "Checking." },
          {
            messageId: "M1",
            fromSupport: false,
            at: new Date(T0 + 1000),
            text: "Broken.",
            imageUrls: ["https://a.example/1.png", 7, null],
            videoUrls: ["https://a.example/v.mp4"],
          },
          { messageId: "pending:abc", fromSupport: false, at: new Date(T0 + 3000), text: "More." },
        ],
      },
    });
    expect(await disputeDetail(prisma, OTHER, d.id)).toBeNull();
    expect((await prisma.dispute.findUniqueOrThrow({ where: { id: d.id } })).unread).toBe(true);
    const got = (await disputeDetail(prisma, SHOP, d.id))!;
    expect((await prisma.dispute.findUniqueOrThrow({ where: { id: d.id } })).unread).toBe(false);
    expect(got).toMatchObject({
      id: d.id,
      svcDisputeId: d.svcDisputeId,
      status: "Pending review",
      closed: false,
      cancelled: false,
      outcome: null,
      reason: "Item damaged",
      expect: "Reissue",
      money: "12.00",
      replacementAmount: "12.00",
      openedAt: d.svcCreatedAt.toISOString(),
      order: { id: orderA, name: "#1001", cost: "42.50" },
      svcOrderId: "SO-AAA",
    });
    expect(got.refundParts).toEqual([
      { name: "Product cost", amount: "12.00" },
      { name: "Fee", amount: "1.5" },
    ]);
    expect(got.lines).toEqual([
      { name: "Mug", price: "12.00", quantity: "2", image: "i.png", supplier: "S" },
      { name: "L2", price: "3", quantity: null, image: null, supplier: null },
      { name: "Product", price: null, quantity: null, image: null, supplier: null },
      { name: "Product", price: null, quantity: null, image: null, supplier: null },
    ]);
    expect(got.messages.map((m) => [m.fromSupport, m.sending, m.text, m.images, m.videos])).toEqual(
      [
        [false, false, "Broken.", ["https://a.example/1.png"], ["https://a.example/v.mp4"]],
        [true, false, "Checking.", [], []],
        [false, true, "More.", [], []],
      ],
    );
    expect(got.messages[0]!.at).toBe(new Date(T0 + 1000).toISOString());
    expect(await disputeDetail(prisma, SHOP, "no-such-id")).toBeNull();
  });

  it("a pending, cancelled or settled one, without an order", async () => {
    const pending = await dispute({ svcDisputeId: "pending:bd-1", status: "Sent" });
    expect(await disputeDetail(prisma, SHOP, pending.id)).toMatchObject({
      svcDisputeId: null,
      order: null,
      cancelled: false,
      expect: null,
      refundParts: [],
      lines: [],
      messages: [],
    });
    const fromApp = await dispute({ cancelledAt: new Date(), status: "On hold" });
    expect(await disputeDetail(prisma, SHOP, fromApp.id)).toMatchObject({
      cancelled: true,
      closed: true,
    });
    const atService = await dispute({ status: "Arbitration Cancelled" });
    expect(await disputeDetail(prisma, SHOP, atService.id)).toMatchObject({ cancelled: true });
    const settled = await dispute({ status: "Completed", finallyDeal: 3, expectType: 1 });
    expect(await disputeDetail(prisma, SHOP, settled.id)).toMatchObject({
      cancelled: false,
      closed: true,
      outcome: "rejected",
      expect: "Refund",
    });
  });
});

describe("disputesOfOrder", () => {
  it("lists an order's disputes of the shop, newest first", async () => {
    const order = await prisma.shopOrder.create({
      data: { shopDomain: SHOP, shopifyOrderId: "5003", orderNumber: "page-1003" },
    });
    const older = await dispute({ orderId: order.id, reason: "Item damaged", money: "1.00" });
    const newer = await dispute({
      orderId: order.id,
      svcDisputeId: "pending:bd-2",
      status: "Completed",
      unread: true,
    });
    await dispute({ orderId: order.id, shopDomain: OTHER });
    expect(await disputesOfOrder(prisma, SHOP, order.id)).toEqual([
      {
        id: newer.id,
        svcDisputeId: null,
        status: "Completed",
        closed: true,
        unread: true,
        reason: null,
        money: null,
      },
      {
        id: older.id,
        svcDisputeId: older.svcDisputeId,
        status: "Pending processing",
        closed: false,
        unread: false,
        reason: "Item damaged",
        money: "1.00",
      },
    ]);
    expect(await disputesOfOrder(prisma, OTHER, orderA)).toEqual([]);
  });
});
