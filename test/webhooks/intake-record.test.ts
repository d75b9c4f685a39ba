/**
 * The intake's storage contract (app/events/store.server.ts) against the real database: an
 * event and its job are stored together or not at all, a redelivery stores nothing and runs no
 * inline work, the installed-shop gate refuses without storing, an ignored event has no job.
 * The last part goes through the uninstall route: an old uninstall delivered again after a
 * reinstall must not uninstall the shop again.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { action as uninstalled } from "../../app/routes/webhooks.app.uninstalled";
import { recordInstall } from "../../app/shops/shops.server";
import {
  forgetEventPayload,
  type IncomingEvent,
  jobKindFor,
  loadEvent,
  recordEvent,
  recordIgnoredEvent,
} from "../../app/events/store.server";
import { type JobContext, PermanentJobError } from "../../app/jobs/handler";
import { callRoute } from "../helpers/remix";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";

const INSTALLED = "installed.myshopify.com";
const GONE = "gone.myshopify.com";
const OTHER = "other.myshopify.com";

const event = (over: Partial<IncomingEvent> = {}): IncomingEvent => ({
  source: "svc",
  shopDomain: INSTALLED,
  topic: "LOGISTIC",
  eventKey: "acct-1:m-1",
  payload: { messageId: "m-1", params: { orderId: "SO-1", amount: "12.50" } },
  ...over,
});

const counts = async () => ({
  events: await prisma.webhookEvent.count(),
  jobs: await prisma.job.count(),
});

beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
  await prisma.session.deleteMany();
  await prisma.shop.deleteMany();
  await recordInstall(prisma, INSTALLED, "read_orders");
  await recordInstall(prisma, GONE, "read_orders");
  await prisma.shop.update({
    where: { domain: GONE },
    data: { uninstalledAt: new Date("2026-01-02T03:04:05Z") },
  });
});

describe("recordEvent", () => {
  it("stores the event and one job pointing at each other; a redelivery stores nothing", async () => {
    const triggeredAt = new Date("2026-03-04T05:06:07.000Z");
    const first = await recordEvent(event({ webhookId: "wh-1", triggeredAt }));
    expect(first).toEqual({ duplicate: false, eventId: expect.any(BigInt) });

    const stored = await prisma.webhookEvent.findUniqueOrThrow({ where: { id: first.eventId! } });
    expect(stored).toMatchObject({
      source: "svc",
      shopDomain: INSTALLED,
      topic: "LOGISTIC",
      eventKey: "acct-1:m-1",
      webhookId: "wh-1",
      triggeredAt,
      payload: { messageId: "m-1", params: { orderId: "SO-1", amount: "12.50" } },
      ignoredReason: null,
    });
    const jobs = await prisma.job.findMany();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      id: stored.jobId,
      kind: "svc:LOGISTIC",
      payload: { eventId: String(first.eventId) },
      idempotencyKey: "svc:acct-1:m-1",
      shopDomain: INSTALLED,
      state: "available",
    });

    for (let i = 0; i < 3; i++) {
      expect(await recordEvent(event({ payload: { changed: i } }))).toEqual({ duplicate: true });
    }
    expect(await counts()).toEqual({ events: 1, jobs: 1 });
    // The first delivery's payload is kept.
    expect((await prisma.webhookEvent.findFirstOrThrow()).payload).toEqual(stored.payload);
  });

  it("without webhook id and trigger time, stores them as null", async () => {
    const { eventId } = await recordEvent(event());
    expect(
      await prisma.webhookEvent.findUniqueOrThrow({
        where: { id: eventId! },
        select: { webhookId: true, triggeredAt: true },
      }),
    ).toEqual({ webhookId: null, triggeredAt: null });
  });

  it("one key under two sources, or two keys under one source, are different events", async () => {
    const a = await recordEvent(event({ eventKey: "k" }));
    const b = await recordEvent(event({ eventKey: "k", source: "shopify", topic: "orders/paid" }));
    const c = await recordEvent(event({ eventKey: "k2" }));
    for (const r of [a, b, c]) expect(r.duplicate).toBe(false);
    expect(new Set([a.eventId, b.eventId, c.eventId]).size).toBe(3);
    const jobs = await prisma.job.findMany({
      select: { kind: true, idempotencyKey: true },
      orderBy: { id: "asc" },
    });
    expect(jobs).toEqual([
      { kind: "svc:LOGISTIC", idempotencyKey: "svc:k" },
      { kind: "shopify:orders/paid", idempotencyKey: "shopify:k" },
      { kind: "svc:LOGISTIC", idempotencyKey: "svc:k2" },
    ]);
    expect(jobKindFor("shopify", "orders/create")).toBe("shopify:orders/create");
  });

  it("the shop gate: an unknown shop is refused, an uninstalled one unless accepted, nothing stored", async () => {
    const strict = { onlyForShop: { acceptUninstalled: false } };
    const lenient = { onlyForShop: { acceptUninstalled: true } };
    expect(
      await recordEvent(event({ shopDomain: "nobody.myshopify.com", eventKey: "u1", ...strict })),
    ).toEqual({ duplicate: false, refused: "unknown shop" });
    expect(
      await recordEvent(event({ shopDomain: "nobody.myshopify.com", eventKey: "u2", ...lenient })),
    ).toEqual({ duplicate: false, refused: "unknown shop" });
    expect(await recordEvent(event({ shopDomain: GONE, eventKey: "g1", ...strict }))).toEqual({
      duplicate: false,
      refused: "uninstalled shop",
    });
    expect(await counts()).toEqual({ events: 0, jobs: 0 });

    const kept = await recordEvent(event({ shopDomain: GONE, eventKey: "g2", ...lenient }));
    const live = await recordEvent(event({ shopDomain: INSTALLED, eventKey: "i1", ...strict }));
    expect([kept.duplicate, live.duplicate]).toEqual([false, false]);
    expect(
      await prisma.webhookEvent.findMany({
        select: { shopDomain: true, eventKey: true },
        orderBy: { id: "asc" },
      }),
    ).toEqual([
      { shopDomain: GONE, eventKey: "g2" },
      { shopDomain: INSTALLED, eventKey: "i1" },
    ]);
    expect(await prisma.job.count()).toBe(2);
    // A refused key is not burnt: once the shop is installed the same event is stored.
    await recordInstall(prisma, "nobody.myshopify.com", "read_orders");
    expect(
      (await recordEvent(event({ shopDomain: "nobody.myshopify.com", eventKey: "u1", ...strict })))
        .duplicate,
    ).toBe(false);
  });

  it("without the gate, an event is stored for any shop (the service's events)", async () => {
    const r = await recordEvent(event({ shopDomain: "nobody.myshopify.com" }));
    expect(r.duplicate).toBe(false);
    expect(await counts()).toEqual({ events: 1, jobs: 1 });
  });

  it("inline work runs with a new event only, and rolls back with it", async () => {
    const ran: string[] = [];
    const mark = (label: string) => async () => void ran.push(label);
    await recordEvent(event({ eventKey: "n1" }), mark("new"));
    await recordEvent(event({ eventKey: "n1" }), mark("redelivery"));
    await recordEvent(
      event({ eventKey: "n2", shopDomain: GONE, onlyForShop: { acceptUninstalled: false } }),
      mark("refused"),
    );
    expect(ran).toEqual(["new"]);

    // The inline work sees the stored event (same transaction), and its failure undoes it.
    await expect(
      recordEvent(event({ eventKey: "n3" }), async (tx) => {
        expect(await tx.webhookEvent.count({ where: { eventKey: "n3" } })).toBe(1);
        await tx.shop.update({ where: { domain: OTHER }, data: { scopes: "x" } });
      }),
    ).rejects.toThrow();
    expect(await prisma.webhookEvent.count({ where: { eventKey: "n3" } })).toBe(0);
    expect(await counts()).toEqual({ events: 1, jobs: 1 });
    // Not burnt either: delivered again, it is stored.
    expect((await recordEvent(event({ eventKey: "n3" }))).duplicate).toBe(false);
  });
});

describe("recordIgnoredEvent", () => {
  it("stores the event with its reason and no job; a redelivery stores nothing", async () => {
    const triggeredAt = new Date("2026-05-06T07:08:09.000Z");
    const reason = `unknown event type ${"X".repeat(600)}`;
    const first = await recordIgnoredEvent(
      event({ topic: "DISPUTE", eventKey: "ig-1", webhookId: "wh-9", triggeredAt }),
      reason,
    );
    expect(first).toEqual({ duplicate: false, eventId: expect.any(BigInt) });
    const row = await prisma.webhookEvent.findUniqueOrThrow({ where: { id: first.eventId! } });
    expect(row).toMatchObject({
      source: "svc",
      shopDomain: INSTALLED,
      topic: "DISPUTE",
      eventKey: "ig-1",
      webhookId: "wh-9",
      triggeredAt,
      jobId: null,
      payload: { messageId: "m-1", params: { orderId: "SO-1", amount: "12.50" } },
    });
    // The reason is kept to 500 characters.
    expect(row.ignoredReason).toBe(reason.slice(0, 500));
    expect(await prisma.job.count()).toBe(0);

    expect(
      await recordIgnoredEvent(event({ topic: "DISPUTE", eventKey: "ig-1" }), "again"),
    ).toEqual({ duplicate: true });
    // An event already stored with a job is not stored again as ignored, and vice versa.
    await recordEvent(event({ eventKey: "both" }));
    expect((await recordIgnoredEvent(event({ eventKey: "both" }), "late")).duplicate).toBe(true);
    expect((await recordEvent(event({ eventKey: "ig-1" }))).duplicate).toBe(true);
    expect(await counts()).toEqual({ events: 2, jobs: 1 });
  });

  it("without webhook id and trigger time, stores them as null", async () => {
    const { eventId } = await recordIgnoredEvent(event({ eventKey: "ig-2" }), "short");
    expect(
      await prisma.webhookEvent.findUniqueOrThrow({
        where: { id: eventId! },
        select: { webhookId: true, triggeredAt: true, ignoredReason: true },
      }),
    ).toEqual({ webhookId: null, triggeredAt: null, ignoredReason: "short" });
  });
});

describe("app/uninstalled through its route", () => {
  const deliver = (eventId: string, shop = INSTALLED) =>
    callRoute(
      uninstalled,
      shopifyWebhookRequest("https://app.test/webhooks/app/uninstalled", {
        topic: "app/uninstalled",
        shop,
        body: { id: 1, domain: shop, myshopify_domain: shop },
        eventId,
      }),
    );
  const shopState = async () =>
    prisma.shop.findMany({
      select: { domain: true, uninstalledAt: true },
      orderBy: { domain: "asc" },
    });

  it("marks the shop uninstalled with the event; the old event delivered after a reinstall changes nothing", async () => {
    expect((await deliver("uninstall-1")).status).toBe(200);
    const after = await prisma.shop.findUniqueOrThrow({ where: { domain: INSTALLED } });
    expect(after.uninstalledAt).not.toBeNull();
    expect(await counts()).toEqual({ events: 1, jobs: 1 });

    await recordInstall(prisma, INSTALLED, "read_orders"); // the merchant installs again
    const before = await shopState();
    expect(before.find((s) => s.domain === INSTALLED)?.uninstalledAt).toBeNull();
    expect((await deliver("uninstall-1")).status).toBe(200); // Shopify retries the old one
    expect(await shopState()).toEqual(before);
    expect(await counts()).toEqual({ events: 1, jobs: 1 });
  });

  it("for a shop the app never knew: 200, nothing stored, no shop created", async () => {
    const before = await shopState();
    expect((await deliver("uninstall-x", "stranger.myshopify.com")).status).toBe(200);
    expect(await shopState()).toEqual(before);
    expect(await counts()).toEqual({ events: 0, jobs: 0 });
  });
});

describe("loadEvent: the stored event a webhook job names", () => {
  const ctx = (payload: unknown) => ({ payload, prisma }) as unknown as JobContext;

  it("reads the event by the job's eventId, and null once the event is gone", async () => {
    const { eventId } = await recordEvent(event({ eventKey: "acct-1:m-load" }));
    const stored = await loadEvent(ctx({ eventId: String(eventId) }));
    expect(stored).toMatchObject({ id: eventId, topic: "LOGISTIC", shopDomain: INSTALLED });
    await prisma.job.deleteMany();
    await prisma.webhookEvent.delete({ where: { id: eventId! } });
    expect(await loadEvent(ctx({ eventId: String(eventId) }))).toBeNull();
    // Any number of digits is an id (this one names no event).
    expect(await loadEvent(ctx({ eventId: "987654321" }))).toBeNull();
  });

  it("refuses, for good, a payload whose eventId is missing or not all digits", async () => {
    for (const payload of [
      {},
      null,
      { eventId: 7 },
      { eventId: "" },
      { eventId: "12a" },
      { eventId: "a12" },
      { eventId: "1 2" },
    ]) {
      const error = await loadEvent(ctx(payload)).catch((e: unknown) => e);
      expect(error, JSON.stringify(payload)).toBeInstanceOf(PermanentJobError);
      expect((error as Error).message).toBe("Job payload has no eventId");
    }
  });
});

describe("forgetEventPayload", () => {
  it("keeps only the payload's id and the reason; other events stay whole", async () => {
    const payload = { id: 4711, email: "someone@example.com", customer: { first_name: "Ada" } };
    const kept = { id: 4712, email: "kept@example.com" };
    const forgotten = await recordEvent(event({ eventKey: "forget-1", payload }));
    const other = await recordEvent(event({ eventKey: "forget-2", payload: kept }));
    await forgetEventPayload(prisma, forgotten.eventId!, `not this shop's ${"x".repeat(600)}`);
    const row = await prisma.webhookEvent.findUniqueOrThrow({ where: { id: forgotten.eventId! } });
    expect(row.payload).toEqual({ id: 4711 });
    expect(row.ignoredReason).toBe(`not this shop's ${"x".repeat(600)}`.slice(0, 500));
    const untouched = await prisma.webhookEvent.findUniqueOrThrow({
      where: { id: other.eventId! },
    });
    expect(untouched.payload).toEqual(kept);
    expect(untouched.ignoredReason).toBeNull();
  });
});
