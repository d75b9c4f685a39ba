/**
 * The dispute sync (app/disputes/sync.server.ts) against the service simulator over HTTP: a
 * record stored as the service lists it, its messages read when it is new or moved (and only
 * then, unless forced), its order found, the app's own waiting row claimed, the news on the
 * order's timeline and in the merchant's email; and a pass over an account's recent or whole
 * history. Disputes are put at the service directly (the simulator's state), on paid orders.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLOSED,
  HISTORY_DAYS,
  RECENT_DAYS,
  dealText,
  disputeName,
  isClosed,
  syncDisputes,
  syncRecord,
} from "../../app/disputes/sync.server";
import { updateSettings } from "../../app/settings.server";
import type { DisputeRecord } from "../../app/svc/dispute-shapes";
import type { Dispute as SimDispute } from "../sim/service/state";
import { type DisputeFixture, disputeFixture, prisma } from "./fixture";

const DAY = 24 * 3600_000;
const SHOP = "disputes-sync.myshopify.com";
let f: DisputeFixture;
let seq = 0;

beforeAll(async () => {
  f = await disputeFixture(SHOP);
});
afterAll(async () => {
  await f?.close();
});

type Order = Awaited<ReturnType<DisputeFixture["paidOrder"]>>;

/** A dispute at the service on the order's first line, with the merchant's first message. */
function putDispute(
  fx: DisputeFixture,
  order: Order,
  over: Partial<SimDispute> = {},
  first = "The mug arrived broken.",
): SimDispute {
  const sim = fx.svc.order(order.svcOrderId)!;
  const id = String(800000 + ++seq);
  const now = fx.svc.clock.now() - 1000;
  const line = sim.lines[0]!;
  const d: SimDispute = {
    id,
    accountId: fx.simAccountId,
    businessDisputeId: `sync-${id}`,
    orderInternalId: sim.internalId,
    orderId: order.svcOrderId,
    orderNumber: sim.orderNumber,
    statusCode: 100,
    disputeReasonId: 2,
    expectType: 1,
    refundType: 1,
    lines: [{ lineItemId: line.lineItemId, quantity: 1, price: line.sellPrice }],
    money: line.sellPrice,
    finallyDeal: null,
    createdAt: now,
    updatedAt: now,
    messages: [
      {
        messageId: `M${id}-1`,
        orderId: order.svcOrderId,
        userType: "1",
        createDate: now,
        message: first,
        imageUrl: [],
        videoUrl: [],
      },
    ],
    ...over,
  };
  fx.svc.state.disputes.set(id, d);
  return d;
}

function say(
  d: SimDispute,
  text: string,
  userType: "1" | "2" = "2",
  extra: { imageUrl?: string[] } = {},
) {
  const at = Math.max(f.svc.clock.now(), d.updatedAt + 1);
  d.messages.push({
    messageId: `M${d.id}-${d.messages.length + 1}`,
    orderId: d.orderId,
    userType,
    createDate: at,
    message: text,
    imageUrl: extra.imageUrl ?? [],
    videoUrl: [],
  });
  d.updatedAt = at;
}

async function recordOf(id: string): Promise<DisputeRecord> {
  const page = await f.client.disputes.list({ disputeId: Number(id), pageSize: 1 });
  return page.items[0]!;
}
const sync = async (id: string, tell = true, force = false) =>
  syncRecord(prisma, f.client, f.account, await recordOf(id), tell, force);
const rowOf = (svcDisputeId: string) =>
  prisma.dispute.findUniqueOrThrow({
    where: { svcAccountId_svcDisputeId: { svcAccountId: f.account.id, svcDisputeId } },
    include: { messages: { orderBy: { at: "asc" } } },
  });
const reads = (id: string) =>
  f.svc
    .calls({ op: "getDisputeMessages", accountId: f.simAccountId })
    .filter((c) => (c.body as { disputeId?: string }).disputeId === id).length;
const noticesOf = (orderId: string) =>
  prisma.notice.findMany({ where: { orderId, kind: "disputes" }, orderBy: { key: "asc" } });
const timelineOf = async (orderId: string) =>
  (
    await prisma.timelineEntry.findMany({
      where: { orderId, step: "dispute" },
      orderBy: { id: "asc" },
    })
  ).map((t) => [t.outcome, t.message]);

describe("the rules in words", () => {
  it("isClosed and CLOSED agree: settled, cancelled from the app, or a closing status", async () => {
    const cases: [
      { finallyDeal: number | null; cancelledAt?: Date | null; status: string },
      boolean,
    ][] = [
      [{ finallyDeal: null, status: "Pending processing" }, false],
      [{ finallyDeal: null, cancelledAt: null, status: "On hold" }, false],
      [{ finallyDeal: 3, status: "Pending processing" }, true],
      [{ finallyDeal: 0, status: "On hold" }, true],
      [{ finallyDeal: null, cancelledAt: new Date(), status: "On hold" }, true],
      [{ finallyDeal: null, status: "Cancelled" }, true],
      [{ finallyDeal: null, status: "Arbitration CANCELLED" }, true],
      [{ finallyDeal: null, status: "completed" }, true],
      [{ finallyDeal: null, status: "Complaint review" }, false],
    ];
    const shop = "disputes-closed.myshopify.com";
    for (const [i, [d]] of cases.entries()) {
      await prisma.dispute.create({
        data: {
          shopDomain: shop,
          svcAccountId: "closed-rule",
          svcDisputeId: String(i),
          status: d.status,
          finallyDeal: d.finallyDeal,
          cancelledAt: d.cancelledAt ?? null,
          svcCreatedAt: new Date(),
        },
      });
    }
    expect(cases.map(([d]) => isClosed(d))).toEqual(cases.map(([, closed]) => closed));
    const closed = await prisma.dispute.findMany({
      where: { shopDomain: shop, ...CLOSED },
      select: { svcDisputeId: true },
    });
    expect(closed.map((d) => Number(d.svcDisputeId)).sort()).toEqual(
      cases.flatMap(([, c], i) => (c ? [i] : [])),
    );
  });

  it("dealText and disputeName", () => {
    expect([1, 2, 3, 0, 4, null].map(dealText)).toEqual([
      "refunded",
      "reissued",
      "rejected",
      null,
      null,
      null,
    ]);
    expect(disputeName("700012", "#1001")).toBe("Dispute 700012 (order #1001)");
    expect(disputeName("700012", null)).toBe("Dispute 700012");
    expect(disputeName("700012", "")).toBe("Dispute 700012");
    expect([RECENT_DAYS, HISTORY_DAYS]).toEqual([90, 3 * 365]);
  });
});

describe("syncRecord", () => {
  it("a dispute seen for the first time is stored with its messages and order, and not announced", async () => {
    const order = await f.paidOrder();
    const d = putDispute(f, order, { statusCode: 200, expectType: 2 });
    say(d, "  We are\n checking.  ", "2", { imageUrl: ["https://svc.example/p.png"] });
    say(d, "x".repeat(2100), "1");
    d.messages.push({ ...d.messages[0]!, messageId: "", message: "no id" });
    const rec = await recordOf(d.id);
    const r = await syncRecord(prisma, f.client, f.account, rec, true);
    expect(r).toEqual({ created: true, changed: false, read: true, support: 1 });
    const row = await rowOf(d.id);
    const sim = f.svc.order(order.svcOrderId)!;
    expect(row).toMatchObject({
      shopDomain: SHOP,
      svcAccountId: f.account.id,
      status: "Pending review",
      reason: "Item damaged",
      money: rec.money,
      replacementAmount: rec.money,
      finallyDeal: null,
      orderId: order.id,
      svcOrderId: order.svcOrderId,
      svcCreatedAt: new Date(d.createdAt),
      svcUpdatedAt: new Date(d.updatedAt),
      messagesReadAt: new Date(d.updatedAt),
      lastMessageAt: new Date(d.updatedAt),
      unread: false,
      refundDetails: [
        { type: "PRODUCT_COST", name: "Product cost", amount: rec.money },
        { type: "SHIPPING_COST", name: "Shipping cost", amount: "0.00" },
      ],
    });
    const v = f.svc.state.catalog.variantByVid.get(sim.lines[0]!.vid)!;
    expect(row.lines).toEqual([
      {
        lineItemId: sim.lines[0]!.lineItemId,
        productName: f.svc.state.catalog.byPid.get(v.pid)!.nameEn,
        price: rec.money,
        image: v.image,
        supplierName: f.svc.state.catalog.byPid.get(v.pid)!.supplierName ?? null,
      },
    ]);
    expect(
      row.messages.map((m) => [m.messageId, m.fromSupport, m.text.length, m.imageUrls]),
    ).toEqual([
      [`M${d.id}-1`, false, "The mug arrived broken.".length, []],
      [`M${d.id}-2`, true, "  We are\n checking.  ".length, ["https://svc.example/p.png"]],
      [`M${d.id}-3`, false, 2000, []],
    ]);
    expect(row.messages.map((m) => m.at.getTime())).toEqual(
      d.messages.slice(0, 3).map((m) => m.createDate),
    );
    // First sight: listed, not news.
    expect(await timelineOf(order.id)).toEqual([]);
    expect(await noticesOf(order.id)).toEqual([]);
  });

  it("nothing moved: the record is stored again, its messages are not read", async () => {
    const order = await f.paidOrder();
    const d = putDispute(f, order);
    await sync(d.id);
    const n = reads(d.id);
    // The amount changes without a new updateDate: stored, not read, not news.
    const rec = await recordOf(d.id);
    expect(
      await syncRecord(
        prisma,
        f.client,
        f.account,
        { ...rec, money: "1.23" as DisputeRecord["money"] },
        true,
      ),
    ).toEqual({
      created: false,
      changed: false,
      read: false,
      support: 0,
    });
    expect(reads(d.id)).toBe(n);
    expect((await rowOf(d.id)).money).toBe("1.23");
    // Forced (the daily pass): read, though nothing is new.
    expect(await sync(d.id, true, true)).toEqual({
      created: false,
      changed: true,
      read: true,
      support: 0,
    });
    expect(reads(d.id)).toBe(n + 1);
    expect(await noticesOf(order.id)).toEqual([]);
  });

  it("support's message and a status change are news: timeline, email, unread", async () => {
    const order = await f.paidOrder();
    const d = putDispute(f, order);
    await sync(d.id);
    f.svc.setDisputeStatus(d.id, 300, ` Thanks,\n\twe  are checking ${"z".repeat(170)} `);
    say(d, "");
    expect(await sync(d.id)).toEqual({ created: false, changed: true, read: true, support: 2 });
    const row = await rowOf(d.id);
    expect(row).toMatchObject({ status: "Finance review", unread: true });
    const name = `Dispute ${d.id} (order ${order.name})`;
    const said = `Thanks, we are checking ${"z".repeat(170)}`;
    const texts = [
      `${name} is now Finance review.`,
      `${name}: support wrote: “${said.slice(0, 160)}…”`,
      `${name}: support wrote (files attached)`,
    ];
    expect(await timelineOf(order.id)).toEqual(texts.map((t) => ["info", t]));
    const notices = await noticesOf(order.id);
    expect(notices.map((n) => [n.shopDomain, n.key, n.text]).sort()).toEqual(
      [
        [SHOP, `dispute:${row.id}:status:Finance review:`, texts[0]],
        [SHOP, `dispute:${row.id}:message:M${d.id}-2`, texts[1]],
        [SHOP, `dispute:${row.id}:message:M${d.id}-3`, texts[2]],
      ].sort(),
    );
    // The same again is not news twice.
    await sync(d.id, true, true);
    expect(await noticesOf(order.id)).toHaveLength(3);
  });

  it("a short message is quoted whole; a settled dispute says its outcome", async () => {
    const order = await f.paidOrder({ shopOrderName: null });
    const d = putDispute(f, order, { expectType: 2 });
    await sync(d.id);
    f.svc.setDisputeStatus(d.id, 600, "y".repeat(160));
    await sync(d.id);
    const row = await rowOf(d.id);
    const sim = await prisma.shopOrder.findUniqueOrThrow({ where: { id: order.id } });
    const name = `Dispute ${d.id} (order #${sim.shopifyOrderId})`;
    expect(await timelineOf(order.id)).toEqual([
      ["info", `${name} is now Completed (reissued).`],
      ["info", `${name}: support wrote: “${"y".repeat(160)}”`],
    ]);
    expect((await noticesOf(order.id)).map((n) => n.key)).toContain(
      `dispute:${row.id}:status:Completed:2`,
    );
    // The outcome alone changing is news too.
    d.finallyDeal = 3;
    await sync(d.id);
    expect((await timelineOf(order.id)).at(-1)).toEqual([
      "info",
      `${name} is now Completed (rejected).`,
    ]);
  });

  it("without the email switch, news goes on the timeline only; without an order, nowhere", async () => {
    const order = await f.paidOrder();
    const d = putDispute(f, order);
    await sync(d.id);
    say(d, "A question for you.");
    expect(await sync(d.id, false)).toMatchObject({ support: 1 });
    expect(await timelineOf(order.id)).toHaveLength(1);
    expect(await noticesOf(order.id)).toEqual([]);
    expect((await rowOf(d.id)).unread).toBe(true);

    // A dispute on an order the shop does not have: told by email, without an order.
    const other = await f.paidOrder();
    await prisma.shopOrder.delete({ where: { id: other.id } });
    const e = putDispute(f, other);
    await sync(e.id);
    f.svc.setDisputeStatus(e.id, 400);
    await sync(e.id);
    const row = await rowOf(e.id);
    expect(row.orderId).toBeNull();
    const notices = await prisma.notice.findMany({
      where: { key: { startsWith: `dispute:${row.id}:` } },
    });
    expect(notices.map((n) => [n.orderId, n.text])).toEqual([
      [null, `Dispute ${e.id} is now On hold.`],
    ]);
  });

  it("finds the order through a shipment of a replaced service order", async () => {
    const order = await f.paidOrder();
    const replaced = await f.paidOrder();
    await prisma.shopOrder.delete({ where: { id: replaced.id } });
    await prisma.shipment.create({ data: { orderId: order.id, svcOrderId: replaced.svcOrderId } });
    const d = putDispute(f, replaced);
    await sync(d.id);
    expect(await rowOf(d.id)).toMatchObject({ orderId: order.id, svcOrderId: replaced.svcOrderId });
    // Another shop's shipment of the same service order is not this shop's order.
    const elsewhere = await f.paidOrder();
    await prisma.shopOrder.update({
      where: { id: elsewhere.id },
      data: { shopDomain: "another-shop.myshopify.com" },
    });
    await prisma.shipment.create({
      data: { orderId: elsewhere.id, svcOrderId: elsewhere.svcOrderId },
    });
    const e = putDispute(f, elsewhere);
    await sync(e.id);
    expect((await rowOf(e.id)).orderId).toBeNull();
  });

  it("keeps what the record lacks as empty, and reads a row never read before", async () => {
    const order = await f.paidOrder();
    const d = putDispute(f, order);
    const rec = await recordOf(d.id);
    const bare = {
      id: rec.id,
      status: `${"S".repeat(120)}`,
      productList: [{}],
      createDate: new Date(Number.NaN),
      updateDate: null,
    } as unknown as DisputeRecord;
    await syncRecord(prisma, f.client, f.account, bare, true);
    const row = await rowOf(d.id);
    expect(row).toMatchObject({
      status: "S".repeat(100),
      reason: null,
      money: null,
      replacementAmount: null,
      finallyDeal: null,
      svcCreatedAt: new Date(0),
      svcUpdatedAt: null,
      messagesReadAt: new Date(0),
      lines: [
        { lineItemId: null, productName: null, price: null, image: null, supplierName: null },
      ],
    });
    // No updateDate and nothing else moved: not read again.
    const n = reads(d.id);
    await syncRecord(prisma, f.client, f.account, bare, true);
    expect(reads(d.id)).toBe(n);
    // A status the service leaves empty reads "Unknown".
    await syncRecord(prisma, f.client, f.account, { ...bare, status: "" }, true);
    expect((await rowOf(d.id)).status).toBe("Unknown");
    const m = reads(d.id);
    // A row the app never read (no messagesReadAt) is read, even with no updateDate.
    await prisma.dispute.update({
      where: { id: row.id },
      data: { messagesReadAt: null, status: "Unknown" },
    });
    await syncRecord(prisma, f.client, f.account, { ...bare, status: "" }, true);
    expect(reads(d.id)).toBe(m + 1);
  });

  it("a dispute the service no longer details keeps its refund parts", async () => {
    const order = await f.paidOrder();
    const d = putDispute(f, order);
    await sync(d.id);
    const before = (await rowOf(d.id)).refundDetails;
    expect(before).toHaveLength(2);
    say(d, "Moved on.");
    f.svc.setFaults({ ops: ["getDisputeDetail"], rate5xx: 1 });
    try {
      await expect(sync(d.id)).rejects.toThrow();
    } finally {
      f.svc.clearFaults();
    }
    // Not found at the detail (e.g. moved to another account): the rest is kept in step.
    const rec = await recordOf(d.id);
    f.svc.state.disputes.get(d.id)!.accountId = "someone-else";
    try {
      await expect(syncRecord(prisma, f.client, f.account, rec, true)).rejects.toMatchObject({
        name: "SvcNotFoundError",
      });
    } finally {
      f.svc.state.disputes.get(d.id)!.accountId = f.simAccountId;
    }
    expect((await rowOf(d.id)).refundDetails).toEqual(before);
  });
});

describe("a dispute whose messages name no order", () => {
  it("is stored without an order, and claims no row", async () => {
    const order = await f.paidOrder();
    // A shop order and a waiting row that know no service order either.
    const unplaced = await prisma.shopOrder.create({
      data: { shopDomain: SHOP, shopifyOrderId: `u-${++seq}`, orderNumber: `unplaced-${seq}` },
    });
    const w = await prisma.dispute.create({
      data: {
        shopDomain: SHOP,
        svcAccountId: f.account.id,
        svcDisputeId: `pending:bd-none-${++seq}`,
        status: "Sent",
        svcCreatedAt: new Date(),
      },
    });
    const d = putDispute(f, order);
    for (const m of d.messages) m.orderId = "";
    expect(await sync(d.id)).toMatchObject({ created: true });
    const row = await rowOf(d.id);
    expect(row).toMatchObject({ orderId: null, svcOrderId: null });
    expect(row.id).not.toBe(w.id);
    expect(unplaced.id).not.toBe(row.orderId);
  });
});

describe("claiming the app's own row", () => {
  async function waiting(order: Order, text: string, at: Date) {
    return prisma.dispute.create({
      data: {
        shopDomain: SHOP,
        svcAccountId: f.account.id,
        svcDisputeId: `pending:bd-${++seq}`,
        businessDisputeId: `bd-${seq}`,
        orderId: order.id,
        svcOrderId: order.svcOrderId,
        status: "Sent",
        expectType: 1,
        svcCreatedAt: at,
        createdAt: at,
        messages: { create: { messageId: `pending:bd-${seq}`, fromSupport: false, at, text } },
      },
    });
  }

  it("takes the waiting row with the same first message; its status is not news, support's words are", async () => {
    const order = await f.paidOrder();
    const a = await waiting(order, "First one.", new Date(Date.now() - 60_000));
    const b = await waiting(order, "Second  one 📦", new Date(Date.now() - 30_000));
    const d = putDispute(f, order, {}, "Second one");
    say(d, "Support got it.");
    expect(await sync(d.id)).toEqual({ created: false, changed: true, read: true, support: 1 });
    const row = await rowOf(d.id);
    expect(row.id).toBe(b.id);
    expect(row.expectType).toBe(1);
    // The stand-in message is replaced by the service's own.
    expect(row.messages.map((m) => [m.messageId, m.text])).toEqual([
      [`M${d.id}-1`, "Second one"],
      [`M${d.id}-2`, "Support got it."],
    ]);
    expect(row.unread).toBe(true);
    expect(await timelineOf(order.id)).toEqual([
      ["info", `Dispute ${d.id} (order ${order.name}): support wrote: “Support got it.”`],
    ]);
    expect((await prisma.dispute.findUniqueOrThrow({ where: { id: a.id } })).svcDisputeId).toMatch(
      /^pending:/,
    );
    // No text matches: the oldest waiting row is taken (not the first written).
    const older = await waiting(order, "Yet another.", new Date(Date.now() - 120_000));
    const e = putDispute(f, order, {}, "Something else");
    expect(await sync(e.id)).toMatchObject({ created: false, changed: true });
    expect((await rowOf(e.id)).id).toBe(older.id);
    const e2 = putDispute(f, order, {}, "Something else again");
    expect(await sync(e2.id)).toMatchObject({ created: false, changed: true });
    expect((await rowOf(e2.id)).id).toBe(a.id);
    // Nothing waits any more: a new row.
    const g = putDispute(f, order, {}, "Third");
    expect(await sync(g.id)).toMatchObject({ created: true, changed: false });
  });

  it("a row waiting on another order, or of another account, is not taken", async () => {
    const order = await f.paidOrder();
    const other = await f.paidOrder();
    const w = await waiting(other, "Broken.", new Date());
    await prisma.dispute.create({
      data: {
        shopDomain: SHOP,
        svcAccountId: "another-account",
        svcDisputeId: `pending:bd-x-${++seq}`,
        svcOrderId: order.svcOrderId,
        status: "Sent",
        svcCreatedAt: new Date(),
      },
    });
    const d = putDispute(f, order, {}, "Broken.");
    expect(await sync(d.id)).toMatchObject({ created: true });
    expect((await rowOf(d.id)).id).not.toBe(w.id);
    // Support's message alone keeps the merchant's stand-in until the service lists theirs.
    const x = putDispute(f, other, { messages: [] });
    say(x, "Support opened this one.");
    expect(await sync(x.id)).toMatchObject({ created: false, changed: true });
    const claimed = await rowOf(x.id);
    expect(claimed.id).toBe(w.id);
    expect(claimed.messages.map((m) => m.messageId).sort()).toEqual(
      [`M${x.id}-1`, w.svcDisputeId].sort(),
    );
  });
});

describe("syncDisputes", () => {
  let g: DisputeFixture;
  const WALK_SHOP = "disputes-sync-walk.myshopify.com";
  beforeAll(async () => {
    g = await disputeFixture(WALK_SHOP);
  });
  afterAll(async () => {
    await g?.close();
  });
  const walk = (mode: "recent" | "full", signal?: AbortSignal) =>
    syncDisputes(prisma, g.client, g.account, { mode, now: g.svc.clock.now(), signal });
  const listBodies = (since: number) =>
    g.svc
      .calls({ op: "getDisputeList", accountId: g.simAccountId })
      .slice(since)
      .map((c) => c.body as { startDate: string; endDate: string });

  it("reads the last 90 days, or the whole history, and counts what it did", async () => {
    const order = await g.paidOrder();
    const now = g.svc.clock.now();
    const recent = putDispute(g, order);
    const old = putDispute(g, order, { createdAt: now - 200 * DAY, updatedAt: now - 200 * DAY });
    const ancient = putDispute(g, order, {
      createdAt: now - (HISTORY_DAYS - 2) * DAY,
      updatedAt: now - (HISTORY_DAYS - 2) * DAY,
    });
    const closed = putDispute(g, order, { statusCode: 700 });
    await updateSettings(prisma, WALK_SHOP, { notifyDisputes: false });

    let calls = g.svc.calls({ op: "getDisputeList", accountId: g.simAccountId }).length;
    expect(await walk("recent")).toEqual({
      seen: 2,
      created: 2,
      changed: 0,
      messagesRead: 2,
      newSupportMessages: 0,
    });
    const bodies = listBodies(calls);
    // 90 days back to now, both ends included (the windows' bounds are exclusive).
    expect(Number(bodies[0]!.startDate)).toBe(Number(bodies.at(-1)!.endDate) - 90 * DAY - 2);

    calls = g.svc.calls({ op: "getDisputeList", accountId: g.simAccountId }).length;
    g.svc.setDisputeStatus(recent.id, 200, "Looking into it.");
    expect(await walk("full")).toEqual({
      seen: 4,
      created: 2,
      changed: 1,
      messagesRead: 3,
      newSupportMessages: 1,
    });
    const windows = listBodies(calls);
    expect(Number(windows[0]!.startDate)).toBe(
      Number(windows.at(-1)!.endDate) - HISTORY_DAYS * DAY - 2,
    );
    // Overlapping by a day, 50 a page.
    expect(Number(windows[1]!.startDate)).toBe(Number(windows[0]!.endDate) - DAY);
    expect(windows.every((w) => (w as { pageSize?: string }).pageSize === "50")).toBe(true);
    expect(await prisma.dispute.count({ where: { shopDomain: WALK_SHOP } })).toBe(4);
    for (const d of [old, ancient])
      expect((await g.client.disputes.list({ disputeId: Number(d.id) })).items).toHaveLength(1);
    // The email switch is off: news goes on the timeline only.
    expect(await prisma.notice.count({ where: { shopDomain: WALK_SHOP } })).toBe(0);
    expect(await timelineOf(order.id)).toHaveLength(2);

    // The daily pass reads the open ones again, not the closed one.
    const closedReads = g.svc
      .calls({ op: "getDisputeMessages", accountId: g.simAccountId })
      .filter((c) => (c.body as { disputeId?: string }).disputeId === closed.id).length;
    expect(await walk("full")).toEqual({
      seen: 4,
      created: 0,
      changed: 3,
      messagesRead: 3,
      newSupportMessages: 0,
    });
    expect(
      g.svc
        .calls({ op: "getDisputeMessages", accountId: g.simAccountId })
        .filter((c) => (c.body as { disputeId?: string }).disputeId === closed.id).length,
    ).toBe(closedReads);
    // The recent pass reads nothing that did not move.
    expect(await walk("recent")).toMatchObject({ seen: 2, changed: 0, messagesRead: 0 });

    // Email on: support's next message is told by email too.
    await updateSettings(prisma, WALK_SHOP, { notifyDisputes: true });
    g.svc.setDisputeStatus(recent.id, 200, "Found it.");
    expect(await walk("recent")).toMatchObject({ newSupportMessages: 1 });
    expect(await prisma.notice.count({ where: { shopDomain: WALK_SHOP } })).toBe(1);
  });

  it("stops when asked to", async () => {
    const ac = new AbortController();
    ac.abort(new Error("shutting down"));
    await expect(walk("recent", ac.signal)).rejects.toThrow("shutting down");
  });
});
