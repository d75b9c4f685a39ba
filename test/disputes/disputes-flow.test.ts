/**
 * Disputes end to end over HTTP against the service simulator: an order placed, paid, shipped
 * and delivered through the pipeline; a refund dispute opened on one of its lines with an
 * uploaded photo (the simulator downloads it from the app's own address), a reply, support's
 * answer arriving through the sync (timeline and email notice), a second dispute cancelled; the
 * daily walk over 90-day windows finding a dispute created 200 days ago and taking a dispute
 * in two windows' overlap once; a reply whose answer is lost sent once, with and without emoji.
 * A reply whose answer and read-back both time out, submitted again with the same form key, is
 * not sent a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DisputeInputError } from "../../app/disputes/forms.server";
import { openDispute, openOptions } from "../../app/disputes/open.server";
import { cancelDispute, replyToDispute } from "../../app/disputes/reply-cancel.server";
import { DISPUTE_JOB } from "../../app/disputes/jobs.server";
import { listDisputes } from "../../app/disputes/page.server";
import { HISTORY_DAYS, syncDisputes } from "../../app/disputes/sync.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { loader as publicFileRoute } from "../../app/routes/files.$token";
import { serveRoutes } from "../helpers/app-server";
import { PNG_1PX, serveFiles } from "../helpers/file-server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { startServiceSim, type ServiceSim } from "../sim/service/index";

const DAY = 24 * 3600_000;
let svc: ServiceSim;
let h: Harness;
let app: Awaited<ReturnType<typeof serveRoutes>>;
let account: { id: string; shopDomain: string };
let order: { id: string; svcOrderId: string; lineIds: string[] };

const photo = () => new File([new Uint8Array(PNG_1PX)], "damaged.png", { type: "image/png" });
let keySeq = 0;
const key = () => `form-key-${++keySeq}-${Date.now()}`;
const simDisputes = () =>
  [...svc.state.disputes.values()].filter((d) => d.accountId === h.simAccountId);
const sync = (mode: "recent" | "full") =>
  syncDisputes(prisma, h.client, account, { mode, now: svc.clock.now() });

/** A paid, shipped and delivered order with two lines (through the pipeline). */
async function deliveredOrder(tag: string) {
  const a = await h.connectedProduct(`${tag} mug`, "12.00");
  const b = await h.connectedProduct(`${tag} lamp`, "30.00");
  const placed = await h.order([
    { product: a, quantity: 2 },
    { product: b, quantity: 1 },
  ]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("PAID");
  h.svc.ship(row.svcOrderId!, { trackNumber: `${tag}-TRK` });
  await h.settle();
  h.svc.deliver(row.svcOrderId!);
  await h.settle();
  expect((await h.row(placed.legacyId)).state).toBe("DELIVERED");
  const sim = svc.order(row.svcOrderId!)!;
  return { id: row.id, svcOrderId: row.svcOrderId!, lineIds: sim.lines.map((l) => l.lineItemId) };
}

const baseInput = (over: Partial<Parameters<typeof openDispute>[4]> = {}) => ({
  orderId: order.id,
  quantities: {},
  reasonId: "2",
  expectType: "1",
  refundType: "1",
  text: "The mug arrived broken.",
  clientKey: key(),
  files: [],
  addresses: [],
  ...over,
});

beforeAll(async () => {
  svc = await startServiceSim({ allowLoopbackWebhooks: true, allowLoopbackUploads: true });
  h = await startHarness({
    shopDomain: "disputes-flow.myshopify.com",
    balance: "2000.00",
    svc,
    clientTimeoutMs: 1_500,
  });
  app = await serveRoutes({ "/files/:token": publicFileRoute });
  account = { id: h.accountId, shopDomain: h.shopDomain };
  order = await deliveredOrder("D1");
});
afterAll(async () => {
  await app?.close();
  await h?.close();
  await svc?.close();
});

describe("a refund dispute on a delivered order", () => {
  let disputeId: string;

  it("the open form offers the order's lines and the service's reasons", async () => {
    const o = await openOptions(h.client, order.svcOrderId);
    expect(o.lines.map((l) => [l.lineItemId, l.available, l.canChoose])).toEqual([
      [order.lineIds[0], 2, true],
      [order.lineIds[1], 1, true],
    ]);
    expect(o.reasons.map((r) => r.name)).toContain("Item damaged");
    expect(o.expectOptions).toEqual(["1", "2"]);
  });

  it("bad input is refused with a clear error and sends nothing", async () => {
    const before = svc.calls({ op: "disputeCreate" }).length;
    const cases: [Partial<Parameters<typeof openDispute>[4]>, string, RegExp][] = [
      [{}, "lines", /at least one line/],
      [{ quantities: { [order.lineIds[1]!]: 2 } }, "lines", /at most 1/],
      [{ quantities: { [order.lineIds[0]!]: 1 }, text: "👍📦" }, "text", /add words/],
      [{ quantities: { [order.lineIds[0]!]: 1 }, reasonId: "99" }, "reasonId", /reasons/],
      [{ quantities: { [order.lineIds[0]!]: 1 }, expectType: "7" }, "expectType", /refund or/],
      [
        {
          quantities: { [order.lineIds[0]!]: 1 },
          files: [new File([Buffer.from("hello, not a picture")], "note.txt")],
        },
        "files",
        /not a photo/,
      ],
    ];
    for (const [over, field, message] of cases) {
      const e = await openDispute(prisma, h.client, account, app.url, baseInput(over)).catch(
        (x: unknown) => x,
      );
      expect(e, JSON.stringify(over)).toBeInstanceOf(DisputeInputError);
      expect((e as DisputeInputError).field).toBe(field);
      expect((e as Error).message).toMatch(message);
    }
    expect(svc.calls({ op: "disputeCreate" })).toHaveLength(before);
    expect(await prisma.dispute.count({ where: { shopDomain: h.shopDomain } })).toBe(0);
  });

  it("opens it for one line with an uploaded photo the service copies from the app", async () => {
    const input = baseInput({
      quantities: { [order.lineIds[0]!]: 1 },
      files: [photo()],
    });
    const r = await openDispute(prisma, h.client, account, app.url, input);
    expect(r.already).toBe(false);
    disputeId = r.disputeId;

    // The service fetched the app's unguessable address, once.
    const kept = await prisma.storedFile.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, purpose: "dispute_upload" },
    });
    expect(svc.uploadFetches()).toEqual([`${app.url}/files/${kept.publicToken}`]);
    expect(kept.publicToken).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const [sim] = simDisputes();
    expect(sim).toMatchObject({ expectType: 1, refundType: 1, disputeReasonId: 2 });
    const line = svc.order(order.svcOrderId)!.lines[0]!;
    expect(sim!.lines).toEqual([
      { lineItemId: order.lineIds[0], quantity: 1, price: line.sellPrice },
    ]);
    expect(sim!.messages[0]!.imageUrl).toHaveLength(1);
    expect(sim!.messages[0]!.imageUrl[0]).toMatch(new RegExp(`^${svc.url}/__files/u/`));

    const row = await prisma.dispute.findUniqueOrThrow({
      where: { id: disputeId },
      include: { messages: true },
    });
    expect(row).toMatchObject({
      svcDisputeId: sim!.id,
      orderId: order.id,
      status: "Pending processing",
    });
    expect(row.messages.map((m) => [m.fromSupport, m.text])).toEqual([
      [false, "The mug arrived broken."],
    ]);
    const timeline = await prisma.timelineEntry.findMany({
      where: { orderId: order.id, step: "dispute" },
    });
    expect(timeline.map((t) => t.message)).toEqual([
      "Dispute opened: refund of 1 item(s), Item damaged.",
    ]);
  });

  it("the same form sent again opens nothing more", async () => {
    const input = baseInput({ quantities: { [order.lineIds[1]!]: 1 } });
    const [a, b] = await Promise.all([
      openDispute(prisma, h.client, account, app.url, input),
      openDispute(prisma, h.client, account, app.url, input),
    ]);
    expect([a.already, b.already].sort()).toEqual([false, true]);
    expect(a.disputeId).toBe(b.disputeId);
    const again = await openDispute(prisma, h.client, account, app.url, input);
    expect(again).toEqual({ disputeId: a.disputeId, already: true });
    expect(simDisputes()).toHaveLength(2);
  });

  it("a reply goes to the service, and support's answer arrives through the sync", async () => {
    const r = await replyToDispute(prisma, h.client, account, app.url, {
      id: disputeId,
      text: "Here is the box as well.",
      clientKey: key(),
      files: [],
      addresses: [],
    });
    expect(r).toEqual({ sent: true, already: false });
    const sim = simDisputes()[0]!;
    expect(sim.messages.map((m) => m.message)).toEqual([
      "The mug arrived broken.",
      "Here is the box as well.",
    ]);

    svc.setDisputeStatus(sim.id, 200, "Thanks, we are checking with the warehouse.");
    const out = await sync("recent");
    expect(out).toMatchObject({ seen: 2, newSupportMessages: 1 });
    // The messages (a reply's lock row, `key:`, is not one).
    const row = await prisma.dispute.findUniqueOrThrow({
      where: { id: disputeId },
      include: {
        messages: {
          where: { NOT: { messageId: { startsWith: "key:" } } },
          orderBy: { at: "asc" },
        },
      },
    });
    expect(row.status).toBe("Pending review");
    expect(row.unread).toBe(true);
    // The refund's parts come from the detail.
    expect(row.refundDetails).toEqual([
      { type: "PRODUCT_COST", name: "Product cost", amount: row.money },
      { type: "SHIPPING_COST", name: "Shipping cost", amount: "0.00" },
    ]);
    expect(row.messages.map((m) => [m.fromSupport, m.text])).toEqual([
      [false, "The mug arrived broken."],
      [false, "Here is the box as well."],
      [true, "Thanks, we are checking with the warehouse."],
    ]);
    const notices = await prisma.notice.findMany({
      where: { shopDomain: h.shopDomain, kind: "disputes" },
      orderBy: { createdAt: "asc" },
    });
    expect(notices.map((n) => n.text).sort()).toEqual(
      [
        `Dispute ${sim.id} (order ${(await h.row(Number((await prisma.shopOrder.findUniqueOrThrow({ where: { id: order.id } })).shopifyOrderId))).shopifyOrderName}) is now Pending review.`,
        expect.stringContaining("support wrote: “Thanks, we are checking with the warehouse.”"),
      ].sort(),
    );
    expect(notices.every((n) => n.orderId === order.id)).toBe(true);
    const steps = await prisma.timelineEntry.findMany({
      where: { orderId: order.id, step: "dispute" },
      orderBy: { id: "asc" },
    });
    expect(steps.map((s) => s.message).filter((m) => !m?.startsWith("Dispute opened"))).toEqual([
      expect.stringMatching(/is now Pending review\.$/),
      expect.stringMatching(/support wrote/),
    ]);

    // Nothing new: the next sync reads no messages and tells nothing.
    const quiet = await sync("recent");
    expect(quiet).toMatchObject({ seen: 2, messagesRead: 0, newSupportMessages: 0 });
    expect(
      await prisma.notice.count({ where: { shopDomain: h.shopDomain, kind: "disputes" } }),
    ).toBe(2);
  });

  it("cancels the other dispute; a second cancel is not an error", async () => {
    const other = await prisma.dispute.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, NOT: { id: disputeId } },
    });
    await cancelDispute(prisma, h.client, account, other.id);
    await cancelDispute(prisma, h.client, account, other.id);
    const sim = svc.state.disputes.get(other.svcDisputeId)!;
    expect(sim.statusCode).toBe(700);
    const row = await prisma.dispute.findUniqueOrThrow({ where: { id: other.id } });
    expect(row.status).toBe("Cancelled");
    expect(row.cancelledAt).not.toBeNull();
    // A cancelled dispute takes no reply: the service's 9063 in plain words.
    const e = await replyToDispute(prisma, h.client, account, app.url, {
      id: other.id,
      text: "Still there?",
      clientKey: key(),
      files: [],
      addresses: [],
    }).catch((x: unknown) => x);
    expect((e as Error).name).toBe("SvcDisputeStateError");
    expect(await prisma.disputeMessage.count({ where: { disputeId: other.id } })).toBe(1);
  });
});

describe("the daily walk over 90-day windows", () => {
  it("finds a dispute created 200 days ago and takes one in two windows' overlap once", async () => {
    const older = await deliveredOrder("D2");
    // Opened elsewhere (the service's own site): the app learns of it only through the list.
    const c = h.client.disputes;
    for (const [i, lineItemId] of older.lineIds.entries()) {
      await c.create({
        businessDisputeId: `elsewhere-${i}`,
        orderId: older.svcOrderId,
        disputeReasonId: 1,
        expectType: 1,
        refundType: 1,
        messageText: `opened on the service's site ${i}`,
        productInfoList: [{ lineItemId, quantity: 1, price: "1.00" }],
      });
    }
    const [old, overlapped] = simDisputes().slice(-2) as [
      typeof svc.state.disputes extends Map<string, infer D> ? D : never,
      typeof svc.state.disputes extends Map<string, infer D> ? D : never,
    ];
    const now = svc.clock.now();
    svc.backdateDispute(old.id, now - 200 * DAY);
    // The walk's windows run from 3 years ago to now, 90 days each, each starting a day before
    // the last one ended: a dispute half a day before the 11th window's end is in two windows.
    const from = now - HISTORY_DAYS * DAY - 1;
    const eleventhEnd = from + 11 * 90 * DAY - 10 * DAY;
    svc.backdateDispute(overlapped.id, eleventhEnd - DAY / 2);
    // The last 90 days see neither.
    const recent = await sync("recent");
    expect(await prisma.dispute.count({ where: { svcDisputeId: old.id } })).toBe(0);
    expect(await prisma.dispute.count({ where: { svcDisputeId: overlapped.id } })).toBe(0);
    expect(recent.seen).toBe(2);

    const listCalls = svc.calls({ op: "getDisputeList" }).length;
    const full = await sync("full");
    expect(full.seen).toBe(4);
    expect(full.created).toBe(2);
    // 3 years in windows of 90 days that overlap by a day: 13 windows, one page each.
    expect(svc.calls({ op: "getDisputeList" }).length - listCalls).toBe(13);
    const bodies = svc
      .calls({ op: "getDisputeList" })
      .slice(listCalls)
      .map((x) => x.body as { startDate: string; endDate: string });
    for (const b of bodies)
      expect(Number(b.endDate) - Number(b.startDate)).toBeLessThanOrEqual(90 * DAY);
    // The overlapped one is in two windows' answers, and is one row.
    const answered = svc
      .calls({ op: "getDisputeList" })
      .slice(listCalls)
      .filter((x) =>
        ((x.response as { data?: { list?: { id: string }[] } }).data?.list ?? []).some(
          (d) => d.id === overlapped.id,
        ),
      );
    expect(answered.length).toBe(2);
    expect(await prisma.dispute.count({ where: { svcDisputeId: overlapped.id } })).toBe(1);
    const found = await prisma.dispute.findFirstOrThrow({
      where: { svcDisputeId: old.id },
      include: { messages: true },
    });
    expect(found.orderId).toBe(older.id);
    expect(found.svcCreatedAt.getTime()).toBe(now - 200 * DAY);
    expect(found.messages.map((m) => m.text)).toEqual(["opened on the service's site 0"]);
    // Found, not announced: the first sight of a dispute is not news.
    expect(
      await prisma.notice.count({
        where: { shopDomain: h.shopDomain, key: { contains: found.id } },
      }),
    ).toBe(0);
  });
});

describe("a reply whose answer is lost is sent once", () => {
  for (const text of ["Please refund to the balance.", "Thank you 🙏 the box is here 📦"]) {
    it(`"${text}"`, async () => {
      const row = await prisma.dispute.findFirstOrThrow({
        where: { shopDomain: h.shopDomain, status: "Pending review" },
      });
      const sim = svc.state.disputes.get(row.svcDisputeId)!;
      const before = sim.messages.length;
      // The service takes the reply, then the answer never comes (the connection is dropped).
      svc.setFaults({ ops: ["disputeReply"], rateTimeout: 1, timeoutMs: 2_500, timeoutDrop: true });
      try {
        const r = await replyToDispute(prisma, h.client, account, app.url, {
          id: row.id,
          text,
          clientKey: key(),
          files: [],
          addresses: [],
        });
        expect(r).toEqual({ sent: false, already: true });
      } finally {
        svc.clearFaults();
      }
      expect(sim.messages.length).toBe(before + 1);
      expect(sim.messages.at(-1)!.message).toBe(text.replace(/\p{Extended_Pictographic}/gu, ""));
      expect(
        svc.calls({ op: "disputeReply" }).filter((c) => c.fault === "timeout").length,
      ).toBeGreaterThan(0);
    });
  }
});

describe("a reply whose answer and read-back are both lost", () => {
  it("sent once: the same form submitted again finds the first one", async () => {
    const row = await prisma.dispute.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, status: "Pending review" },
    });
    const sim = svc.state.disputes.get(row.svcDisputeId)!;
    const before = sim.messages.length;
    const form = {
      id: row.id,
      text: "The second box is missing too.",
      clientKey: key(),
      files: [],
      addresses: [],
    };
    // The service takes the reply and its answer is lost; reading the messages back times out
    // as well: the app cannot know whether the reply arrived.
    svc.setFaults({
      ops: ["disputeReply", "getDisputeMessages"],
      rateTimeout: 1,
      timeoutMs: 2_500,
      timeoutDrop: true,
    });
    try {
      await expect(replyToDispute(prisma, h.client, account, app.url, form)).rejects.toThrow();
    } finally {
      svc.clearFaults();
    }
    expect(sim.messages.length).toBe(before + 1);
    // The merchant presses Send again on the same form: nothing goes a second time.
    expect(await replyToDispute(prisma, h.client, account, app.url, form)).toEqual({
      sent: false,
      already: true,
    });
    expect(sim.messages.length).toBe(before + 1);
    expect(sim.messages.filter((m) => m.message === form.text)).toHaveLength(1);
  });
});

describe("the schedule", () => {
  it("fans out to one sync job per connected account, which brings support's answer in", async () => {
    const row = await prisma.dispute.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, status: "Pending review" },
    });
    svc.setDisputeStatus(row.svcDisputeId, 300, "Finance is checking the refund.");
    await enqueue(prisma, { kind: DISPUTE_JOB.syncAll, payload: {}, idempotencyKey: `t:${key()}` });
    await h.settle();
    const jobs = await prisma.job.findMany({
      where: {
        kind: DISPUTE_JOB.syncAccount,
        payload: { path: ["accountId"], equals: h.accountId },
      },
    });
    expect(jobs.map((j) => [j.state, (j.payload as { mode: string }).mode])).toEqual([
      ["completed", "recent"],
    ]);
    const after = await prisma.dispute.findUniqueOrThrow({
      where: { id: row.id },
      include: { messages: { where: { fromSupport: true }, orderBy: { at: "asc" } } },
    });
    expect(after.status).toBe("Finance review");
    expect(after.messages.at(-1)?.text).toBe("Finance is checking the refund.");
  });
});

describe("the daily pass", () => {
  it("reads an open dispute's messages even when its record did not move", async () => {
    const row = await prisma.dispute.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, status: "Finance review" },
    });
    const sim = svc.state.disputes.get(row.svcDisputeId)!;
    const updated = sim.updatedAt;
    // Support writes, and the record's updateDate stays where it was (the contract allows it).
    sim.messages.push({
      messageId: `M${sim.id}-late`,
      orderId: sim.orderId,
      userType: "2",
      createDate: svc.clock.now(),
      message: "Approved; the refund is paid out today.",
      imageUrl: [],
      videoUrl: [],
    });
    expect(sim.updatedAt).toBe(updated);
    expect(await sync("recent")).toMatchObject({ newSupportMessages: 0 });
    expect(await sync("full")).toMatchObject({ newSupportMessages: 1 });
    const texts = await prisma.disputeMessage.findMany({
      where: { disputeId: row.id, fromSupport: true },
      orderBy: { at: "asc" },
    });
    expect(texts.at(-1)?.text).toBe("Approved; the refund is paid out today.");
    // A closed dispute is not read again by the daily pass.
    const cancelled = await prisma.dispute.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, status: "Cancelled" },
    });
    const reads = svc
      .calls({ op: "getDisputeMessages" })
      .filter(
        (c) => (c.body as { disputeId?: string }).disputeId === cancelled.svcDisputeId,
      ).length;
    await sync("full");
    expect(
      svc
        .calls({ op: "getDisputeMessages" })
        .filter((c) => (c.body as { disputeId?: string }).disputeId === cancelled.svcDisputeId)
        .length,
    ).toBe(reads);
  });
});

describe("the Disputes page's list", () => {
  it("counts its views, searches by order and dispute id, and filters by the service's status", async () => {
    const list = (q: string) => listDisputes(prisma, h.shopDomain, new URLSearchParams(q));
    const all = await list("");
    expect(all.total).toBe(4);
    expect(all.viewCounts).toEqual({ all: 4, unread: 1, open: 3, closed: 1 });
    expect(all.statuses).toEqual(["Cancelled", "Finance review", "Pending processing"]);
    const orderName = (await prisma.shopOrder.findUniqueOrThrow({ where: { id: order.id } }))
      .shopifyOrderName!;
    expect(
      (await list(`q=${encodeURIComponent(orderName)}`)).disputes.map((d) => d.orderId),
    ).toEqual([order.id, order.id]);
    const one = all.disputes[0]!;
    expect((await list(`q=${one.svcDisputeId}`)).disputes.map((d) => d.id)).toEqual([one.id]);
    expect((await list("status=Cancelled")).disputes.map((d) => d.status)).toEqual(["Cancelled"]);
    expect((await list("view=closed&status=Pending%20processing")).total).toBe(0);
    expect((await list("view=unread")).disputes.map((d) => d.status)).toEqual(["Finance review"]);
    // A dispute opened on the service's site shows its order too (found through its messages).
    expect(all.disputes.every((d) => d.orderName)).toBe(true);
  });
});

describe("attachments", () => {
  it("a reply whose attachment takes the service longer to copy than the client's usual time-out", async () => {
    // The service downloads before it answers (up to 120 s); the harness's client gives up
    // after 1.5 s on other calls.
    const row = await prisma.dispute.findFirstOrThrow({
      where: { shopDomain: h.shopDomain, status: "Finance review" },
    });
    const slow = await serveFiles({ "/slow.png": { bytes: PNG_1PX, delayMs: 2_500 } });
    try {
      const r = await replyToDispute(prisma, h.client, account, app.url, {
        id: row.id,
        text: "One more photo, from the courier.",
        clientKey: key(),
        files: [],
        addresses: [`${slow.url}/slow.png`],
      });
      expect(r).toEqual({ sent: true, already: false });
      expect(svc.uploadFetches().at(-1)).toBe(`${slow.url}/slow.png`);
      const sent = svc.state.disputes.get(row.svcDisputeId)!.messages.at(-1)!;
      expect(sent.message).toBe("One more photo, from the courier.");
      expect(sent.imageUrl).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});
