/**
 * Placing orders (app/fulfilment/place/), step by step against the shop and service
 * simulators over HTTP and a real database: the webhook that stores the order (validation,
 * trigger, replays, the review window), the holds and their reasons, the exact store-flow V3
 * create request, a create whose reply is lost (found by its number, never created twice), the
 * service's refusals (which fail the order with the service's reason) and its transient errors
 * (which are retried), the payment run scheduled after a create, and other shops untouched.
 * The request builder and the address checks are also tested as pure functions.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ShopOrderLine as LineRow } from "@prisma/client";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { releaseOrder } from "../../app/fulfilment/actions.server";
import type { FulfilmentDeps } from "../../app/orders/deps.server";
import { orderNumberFor } from "../../app/orders/model";
import {
  buildCreateRequest,
  hold,
  isRetryable,
  missingShipping,
  orderWebhookSchema,
  placeOrder,
  protectedDataMessage,
  receiveShopOrder,
} from "../../app/fulfilment/place/index.server";
import { JOB } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { currentLogContext, withLogContext } from "../../app/log-context.server";
import { DEFAULT_SETTINGS, type ShopSettings, updateSettings } from "../../app/settings.server";
import type { ShopOrder as ShopifyOrder } from "../../app/shop/gateway.server";
import { SvcBusyError, SvcError, SvcRateLimitError, SvcServerError } from "../../app/svc/errors";
import type { SimProduct } from "../sim/shop/server";
import { type Harness, prisma, startHarness } from "./harness";

const SHOP = "place-core.myshopify.com";
const OTHER = "place-other.myshopify.com";

const BASE: Partial<ShopSettings> = {
  trigger: "orders/paid",
  logisticName: "SvcPacket Ordinary",
  fromCountryCode: "CN",
  payBatchWindowSeconds: 0,
  payBatchSize: 50,
  paused: false,
  unconnectedLines: "hold",
  reviewWindowMinutes: 0,
  holdRiskyOrders: true,
  sandbox: false,
  autoPay: true,
  shopLogisticsType: 2,
  storageId: "",
  iossType: 1,
  iossNumber: "",
};

let h: Harness;
let mug: SimProduct;
let cap: SimProduct;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP, settings: BASE });
  mug = await h.connectedProduct("Place Mug", "9.50");
  cap = await h.connectedProduct("Place Cap", "4.25");
});
afterAll(async () => h?.close());

beforeEach(async () => {
  h.svc.clearFaults();
  await updateSettings(prisma, SHOP, BASE);
  await prisma.job.deleteMany({ where: { kind: JOB.pay } });
});

/** The pipeline's dependencies with the clock stopped at `ms`. */
const at = (ms: number): FulfilmentDeps => ({
  ...h.deps,
  clock: { ...h.deps.clock, now: () => ms },
});

type Lines = {
  product: SimProduct;
  quantity: number;
  requiresShipping?: boolean;
  location?: string;
}[];

/** An order placed in the shop simulator and received from its webhook payload. */
async function received(
  lines: Lines,
  o: Omit<Parameters<Harness["shop"]["placeOrder"]>[1], "lines"> & { nowMs?: number } = {},
) {
  const { nowMs, ...rest } = o;
  const placed = h.shop.placeOrder(SHOP, {
    ...rest,
    lines: lines.map((l) => ({
      variantId: l.product.variants[0]!.id,
      quantity: l.quantity,
      ...(l.requiresShipping === false ? { requiresShipping: false } : {}),
      ...(l.location ? { location: l.location } : {}),
    })),
  });
  const r = await receiveShopOrder(prisma, {
    shopDomain: SHOP,
    topic: "orders/paid",
    payload: h.shop.orderWebhookPayload(SHOP, placed.id),
    nowMs: nowMs ?? h.svc.clock.now(),
  });
  expect(r.created).toBe(true);
  return { placed, orderId: r.orderId! };
}

const row = (id: string) =>
  prisma.shopOrder.findUniqueOrThrow({
    where: { id },
    include: {
      lines: { orderBy: { shopifyLineItemId: "asc" } },
      timeline: { orderBy: { id: "asc" } },
    },
  });

/** The harness gives each product the image named after its SKU number. */
const imageOf = (p: SimProduct) =>
  `https://cdn.example.com/${p.variants[0]!.sku.replace("SKU-", "")}.png`;

/** The order's row has these fields and its last timeline entry these. */
async function expectRow(id: string, fields: object, last: object) {
  const r = await row(id);
  expect(r).toMatchObject(fields);
  expect(r.timeline.at(-1)).toMatchObject(last);
  return r;
}

const creates = () => h.svc.calls({ op: "createOrderV3", accountId: h.simAccountId });
const payJobs = () =>
  prisma.job.findMany({
    where: { kind: JOB.pay, concurrencyKey: `pay:${h.accountId}` },
    orderBy: { id: "asc" },
  });

// ---------------------------------------------------------------------------------------------

describe("receiving the order webhook", () => {
  it("stores the order once with its number, name, currency and customer, and schedules its placing now", async () => {
    const placed = h.shop.placeOrder(SHOP, {
      lines: [{ variantId: mug.variants[0]!.id, quantity: 1 }],
    });
    const payload = {
      ...h.shop.orderWebhookPayload(SHOP, placed.id),
      currency: "EUR",
      customer: { id: 777001 },
    };
    const now = h.svc.clock.now();
    const first = await receiveShopOrder(prisma, {
      shopDomain: SHOP,
      topic: "orders/paid",
      payload,
      nowMs: now,
    });
    expect(first.created).toBe(true);
    const r = await row(first.orderId!);
    expect(r).toMatchObject({
      shopDomain: SHOP,
      shopifyOrderId: String(placed.legacyId),
      shopifyOrderName: placed.name,
      orderNumber: orderNumberFor(SHOP, String(placed.legacyId)),
      state: "RECEIVED",
      reasonCode: null,
      reasonMessage: null,
      placeAfter: null,
      isSandbox: false,
      currency: "EUR",
      customerId: "777001",
    });
    expect(r.timeline).toHaveLength(1);
    expect(r.timeline[0]).toMatchObject({
      step: "received",
      outcome: "info",
      message: "Received from the shop (orders/paid).",
    });
    const jobs = await prisma.job.findMany({
      where: { kind: JOB.place, payload: { equals: { orderId: r.id } } },
    });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.idempotencyKey).toBe(`place:${r.id}:received`);
    expect(jobs[0]!.runAt.getTime()).toBeLessThanOrEqual(Date.now());

    // The same webhook again (Shopify retries, or orders/paid after a replay): one order.
    const again = await receiveShopOrder(prisma, {
      shopDomain: SHOP,
      topic: "orders/paid",
      payload,
      nowMs: now + 1000,
    });
    expect(again).toEqual({ orderId: first.orderId, created: false });
    // Cancelled in the shop since: still the order already stored, nothing more.
    const cancelled = await receiveShopOrder(prisma, {
      shopDomain: SHOP,
      topic: "orders/paid",
      payload: { ...payload, cancelled_at: "2026-01-01T00:00:00Z" },
      nowMs: now + 2000,
    });
    expect(cancelled).toEqual({ orderId: first.orderId, created: false });
    expect(
      await prisma.shopOrder.count({
        where: { shopDomain: SHOP, shopifyOrderId: String(placed.legacyId) },
      }),
    ).toBe(1);
    expect((await row(first.orderId!)).timeline).toHaveLength(1);
    // Its times are the moment it was stored (UTC, as every other time of the row).
    expect(Math.abs(r.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(r.updatedAt).toEqual(r.createdAt);
  });

  it("accepts a text id, no name and no customer; a sandbox shop marks the order sandbox", async () => {
    await updateSettings(prisma, SHOP, { sandbox: true });
    const r = await receiveShopOrder(prisma, {
      shopDomain: SHOP,
      topic: "orders/paid",
      payload: { id: "880001" },
      nowMs: h.svc.clock.now(),
    });
    expect(r.created).toBe(true);
    const stored = await row(r.orderId!);
    expect(stored).toMatchObject({
      shopifyOrderId: "880001",
      shopifyOrderName: null,
      currency: null,
      customerId: null,
      isSandbox: true,
    });
  });

  it("ignores a payload without a usable id, another trigger, and an order already cancelled; nothing stored", async () => {
    const before = await prisma.shopOrder.count();
    const jobsBefore = await prisma.job.count({ where: { kind: JOB.place } });
    const nowMs = h.svc.clock.now();
    const send = (payload: unknown, topic = "orders/paid") =>
      receiveShopOrder(prisma, { shopDomain: SHOP, topic, payload, nowMs });

    for (const bad of [
      null,
      {},
      { id: null },
      { id: { n: 1 } },
      { id: 5, name: 7 },
      { id: 5, customer: { id: [] } },
    ]) {
      const r = await send(bad);
      expect(r.created).toBe(false);
      expect(r.orderId).toBeUndefined();
      expect(r.ignored).toContain("order id");
    }
    const wrongTopic = await send({ id: 880100 }, "orders/create");
    expect(wrongTopic).toEqual({ created: false, ignored: "trigger is orders/paid" });
    const cancelled = await send({ id: 880101, cancelled_at: "2026-01-01T00:00:00Z" });
    expect(cancelled).toEqual({ created: false, ignored: "cancelled in the shop" });

    expect(await prisma.shopOrder.count()).toBe(before);
    expect(await prisma.job.count({ where: { kind: JOB.place } })).toBe(jobsBefore);

    // With orders/create as the trigger, orders/create places and orders/paid is ignored.
    await updateSettings(prisma, SHOP, { trigger: "orders/create" });
    expect((await send({ id: 880102 }, "orders/create")).created).toBe(true);
    expect(await send({ id: 880103 }, "orders/paid")).toEqual({
      created: false,
      ignored: "trigger is orders/create",
    });
  });

  it("a review window holds the order for exactly that long and schedules its placing then", async () => {
    await updateSettings(prisma, SHOP, { reviewWindowMinutes: 5 });
    const nowMs = h.svc.clock.now();
    const before = Date.now();
    const r = await receiveShopOrder(prisma, {
      shopDomain: SHOP,
      topic: "orders/paid",
      payload: { id: 880200 },
      nowMs,
    });
    const stored = await row(r.orderId!);
    const placeAfter = new Date(nowMs + 5 * 60_000);
    expect(stored).toMatchObject({
      state: "HELD",
      reasonCode: "review_window",
      reasonMessage: "Waiting 5 minutes (the review window) before sending it to the service.",
      placeAfter,
    });
    // One entry: the hold says it was received, and until when.
    expect(stored.timeline).toHaveLength(1);
    expect(stored.timeline[0]).toMatchObject({
      step: "received",
      outcome: "held",
      message: `Received from the shop (orders/paid). Placed after ${placeAfter.toISOString()}.`,
    });
    const job = await prisma.job.findFirstOrThrow({
      where: { kind: JOB.place, payload: { equals: { orderId: r.orderId } } },
    });
    const delay = job.runAt.getTime() - before;
    expect(delay).toBeGreaterThanOrEqual(5 * 60_000 - 5_000);
    expect(delay).toBeLessThanOrEqual(5 * 60_000 + 60_000);
  });

  it("the schema keeps the fields it does not read", () => {
    const p = orderWebhookSchema.parse({ id: 1, extra: "x" });
    expect(p).toEqual({ id: "1", extra: "x" });
  });
});

// ---------------------------------------------------------------------------------------------

describe("the create request", () => {
  it("sends every line with its store ids, quantity and variant, the recipient and the settings", async () => {
    // The settings go into the request under the same names.
    const logistics = {
      logisticName: "Express Air",
      fromCountryCode: "US",
      shopLogisticsType: 2,
    };
    // IOSS is set, but the order goes to the United Kingdom (not in the EU): none is sent.
    await updateSettings(prisma, SHOP, { ...logistics, iossType: 2, iossNumber: "IM1234567" });
    const now = h.svc.clock.now();
    const { placed, orderId } = await received(
      [
        { product: mug, quantity: 2 },
        { product: cap, quantity: 3 },
      ],
      {
        email: "ada@example.com",
        shippingAddress: {
          firstName: "Ada",
          lastName: "Lovelace",
          company: null,
          address1: "12 Analytical Way",
          address2: "Flat 3",
          city: "London",
          province: "Greater London",
          provinceCode: "LND",
          zip: "N1 9GU",
          country: "United Kingdom",
          countryCode: "GB",
          phone: "+44 (20) 7946-0958",
        } as never,
      },
    );
    const sent = creates().length;
    const result = await placeOrder(at(now), orderId);
    expect(result.outcome).toBe("created");
    const calls = creates();
    expect(calls).toHaveLength(sent + 1);
    const body = calls.at(-1)!.body as Record<string, unknown>;
    const stored = await row(orderId);
    const [l1, l2] = placed.lineItems;
    expect(body).toMatchObject({
      orderNumber: stored.orderNumber,
      orderFlow: 2,
      shippingCustomerName: "Ada Lovelace",
      shippingAddress: "12 Analytical Way",
      shippingAddress2: "Flat 3",
      shippingCity: "London",
      shippingProvince: "Greater London",
      shippingCountryCode: "GB",
      shippingCountry: "United Kingdom",
      shippingZip: "N1 9GU",
      shippingPhone: "+442079460958",
      email: "ada@example.com",
      ...logistics,
      iossType: 1,
      isSandbox: 0,
      platform: "Shopify",
    });
    expect(body).not.toHaveProperty("iossNumber");
    expect(body).not.toHaveProperty("storageId");
    const products = body.products as Record<string, unknown>[];
    const expected = [
      { p: mug, line: l1!, quantity: 2, price: "9.50" },
      { p: cap, line: l2!, quantity: 3, price: "4.25" },
    ].sort((a, b) => String(a.line.legacyId).localeCompare(String(b.line.legacyId)));
    expect(products).toEqual(
      expected.map((e) => ({
        vid: String(e.p.variants[0]!.legacyId),
        storeProductId: String(e.p.legacyId),
        storeProductImg: imageOf(e.p),
        storeLineItemId: String(e.line.legacyId),
        storeProductName: e.p.title,
        storeSku: e.p.variants[0]!.sku,
        variantOptions: "M-Blue",
        quantity: e.quantity,
        unitPrice: e.price,
      })),
    );
    // The service connected both lines: an order id and its amount come back.
    const svcOrder = h.svc.order(stored.svcOrderId!)!;
    expect(svcOrder.lines.map((l) => [l.storeLineItemId, l.quantity])).toEqual(
      expected.map((e) => [String(e.line.legacyId), e.quantity]),
    );
    expect(stored.lines.map((l) => l.shopifyLineItemId)).toEqual(
      expected.map((e) => String(e.line.legacyId)),
    );
    expect(stored.lines[0]).toMatchObject({
      shopifyProductId: String(expected[0]!.p.legacyId),
      shopifyVariantId: String(expected[0]!.p.variants[0]!.legacyId),
      sku: expected[0]!.p.variants[0]!.sku,
      title: expected[0]!.p.title,
      variantOptions: "M-Blue",
      image: imageOf(expected[0]!.p),
      quantity: expected[0]!.quantity,
      unitPrice: expected[0]!.price,
      requiresShipping: true,
    });
    expect(stored.lines.every((l) => l.svcVid)).toBe(true);
  });

  it("the storage id goes only with shop logistics type 1, the IOSS number only when set", async () => {
    await updateSettings(prisma, SHOP, { storageId: "WH-7", iossNumber: "" });
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    await placeOrder(h.deps, orderId);
    const body = creates().at(-1)!.body as Record<string, unknown>;
    expect(body.shopLogisticsType).toBe(2);
    expect(body).not.toHaveProperty("storageId");
    expect(body).not.toHaveProperty("iossNumber");
  });
});

// ---------------------------------------------------------------------------------------------

describe("holds", () => {
  it("paused: held once with its reason, one timeline entry however often it is checked, then placed when resumed", async () => {
    await updateSettings(prisma, SHOP, { paused: true });
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "held", reason: "paused" });
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "held", reason: "paused" });
    let r = await row(orderId);
    expect(r).toMatchObject({
      state: "HELD",
      reasonCode: "paused",
      reasonMessage: "The shop is paused in Settings: new orders wait until it is resumed.",
    });
    expect(r.timeline.filter((t) => t.step === "hold")).toHaveLength(1);
    expect(r.timeline.at(-1)).toMatchObject({ step: "hold", outcome: "held", errorCode: "paused" });

    // Another cause while held: a new entry.
    await updateSettings(prisma, SHOP, { paused: false, logisticName: "" });
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "held",
      reason: "settings_incomplete",
    });
    r = await row(orderId);
    expect(r.reasonMessage).toBe(
      "Shipping is not set up: add a shipping rule in Settings (a rule for every destination is enough) and the order goes on.",
    );
    expect(r.timeline.filter((t) => t.step === "hold").map((t) => t.errorCode)).toEqual([
      "paused",
      "settings_incomplete",
    ]);
    expect(creates()).toHaveLength(sent);

    await updateSettings(prisma, SHOP, { logisticName: "SvcPacket Ordinary" });
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    r = await row(orderId);
    expect(r).toMatchObject({ state: "CREATED", reasonCode: null, reasonMessage: null });
    expect(creates()).toHaveLength(sent + 1);
  });

  it("hold(): a first hold of a received order, and a held order with a new reason, each write one entry", async () => {
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    await hold(prisma, { id: orderId, state: "RECEIVED", reasonCode: null }, "merchant_hold", "m1");
    await hold(
      prisma,
      { id: orderId, state: "HELD", reasonCode: "merchant_hold" },
      "merchant_hold",
      "m2",
    );
    await hold(
      prisma,
      { id: orderId, state: "HELD", reasonCode: "merchant_hold" },
      "fraud_risk",
      "m3",
    );
    // Sent back to placing (state RECEIVED, the old reason still on the row), then held for
    // the same reason again: a new hold, so a new entry.
    await hold(
      prisma,
      { id: orderId, state: "RECEIVED", reasonCode: "fraud_risk" },
      "fraud_risk",
      "m4",
    );
    const r = await row(orderId);
    expect(r).toMatchObject({ state: "HELD", reasonCode: "fraud_risk", reasonMessage: "m4" });
    expect(r.timeline.filter((t) => t.step === "hold").map((t) => t.message)).toEqual([
      "m1",
      "m3",
      "m4",
    ]);
  });

  it("no account connected: held, nothing sent; the other shop's order is the only one touched", async () => {
    await updateSettings(prisma, OTHER, BASE);
    const r = await receiveShopOrder(prisma, {
      shopDomain: OTHER,
      topic: "orders/paid",
      payload: { id: 990001 },
      nowMs: h.svc.clock.now(),
    });
    const mine = await received([{ product: mug, quantity: 1 }]);
    const before = await row(mine.orderId);
    const sent = creates().length;
    expect(await placeOrder(h.deps, r.orderId!)).toEqual({ outcome: "held", reason: "no_account" });
    const other = await row(r.orderId!);
    expect(other).toMatchObject({
      state: "HELD",
      reasonCode: "no_account",
      reasonMessage:
        "No service account is connected: connect one in Settings and the order goes on.",
    });
    expect(creates()).toHaveLength(sent);
    const after = await row(mine.orderId);
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect(after.state).toBe("RECEIVED");
  });

  it("the review window holds until its end (not a millisecond less); a release skips it", async () => {
    await updateSettings(prisma, SHOP, { reviewWindowMinutes: 5 });
    const t0 = h.svc.clock.now();
    const a = await received([{ product: mug, quantity: 1 }], { nowMs: t0 });
    const end = t0 + 5 * 60_000;
    const held = await placeOrder(at(end - 1), a.orderId);
    expect(held).toEqual({ outcome: "held", reason: "review_window", retryAt: new Date(end) });
    const r = await row(a.orderId);
    expect(r.reasonMessage).toBe(
      `Waiting for the review window: it goes to the service after ${new Date(end).toISOString()}.`,
    );
    expect((await placeOrder(at(end), a.orderId)).outcome).toBe("created");

    const b = await received([{ product: mug, quantity: 1 }], { nowMs: t0 });
    expect((await releaseOrder(h.deps, b.orderId)).ok).toBe(true);
    expect((await placeOrder(at(t0), b.orderId)).outcome).toBe("created");
  });

  it("fraud risk: CANCEL and INVESTIGATE hold with Shopify's recommendation, ACCEPT goes on", async () => {
    const high = await received([{ product: mug, quantity: 1 }], { risk: "HIGH" });
    expect(await placeOrder(h.deps, high.orderId)).toEqual({
      outcome: "held",
      reason: "fraud_risk",
    });
    expect(await row(high.orderId)).toMatchObject({
      state: "HELD",
      reasonCode: "fraud_risk",
      reasonMessage:
        "Shopify's fraud analysis recommends cancelling this order. Review it, then Release or Cancel.",
    });
    const medium = await received([{ product: mug, quantity: 1 }], { risk: "MEDIUM" });
    expect((await placeOrder(h.deps, medium.orderId)).outcome).toBe("held");
    expect((await row(medium.orderId)).reasonMessage).toBe(
      "Shopify's fraud analysis recommends investigating this order. Review it, then Release or Cancel.",
    );
    // A fraud hold waits for the merchant: placing again does nothing.
    expect(await placeOrder(h.deps, medium.orderId)).toEqual({
      outcome: "skipped",
      why: "state HELD",
    });
    const low = await received([{ product: mug, quantity: 1 }], { risk: "LOW" });
    expect((await placeOrder(h.deps, low.orderId)).outcome).toBe("created");

    // Released by the merchant, or the setting off: placed.
    expect((await releaseOrder(h.deps, high.orderId)).ok).toBe(true);
    expect((await placeOrder(h.deps, high.orderId)).outcome).toBe("created");
    await updateSettings(prisma, SHOP, { holdRiskyOrders: false });
    const risky = await received([{ product: mug, quantity: 1 }], { risk: "HIGH" });
    expect((await placeOrder(h.deps, risky.orderId)).outcome).toBe("created");
  });

  it("unconnected lines: held naming them, or sent when the shop says so (created without an id)", async () => {
    const loose = h.unconnectedProduct("Loose Poster", "12.00");
    // Another shop's connection of the same variant id does not connect this shop's line.
    await prisma.productConnection.create({
      data: {
        shopDomain: OTHER,
        shopifyProductId: String(loose.legacyId),
        shopifyVariantId: String(loose.variants[0]!.legacyId),
        svcVid: "VID-OTHER-SHOP",
      },
    });
    const plain = h.shop.addProduct(SHOP, {
      title: "Plain Card",
      variants: [{ sku: "PLAIN-1", price: "2.00" }],
    });
    const long = h.unconnectedProduct(`Long${" Banner".repeat(60)}`, "3.00");
    const { orderId } = await received([
      { product: mug, quantity: 1 },
      { product: loose, quantity: 2 },
      { product: plain, quantity: 1 },
      { product: long, quantity: 1 },
    ]);
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "held",
      reason: "unconnected_lines",
    });
    // The list (in line order, the variant's title when it has one) is cut to 300 characters.
    expect((await row(orderId)).reasonMessage).toBe(
      `3 line(s) are not connected to a catalog product: ${`Loose Poster (M / Blue); Plain Card; ${long.title} (M / Blue)`.slice(0, 300)}. Connect them on the Products page and the order goes on.`,
    );
    expect(creates()).toHaveLength(sent);

    await updateSettings(prisma, SHOP, { unconnectedLines: "send" });
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "created", svcOrderId: null });
    const r = await row(orderId);
    expect(r).toMatchObject({
      state: "CREATED",
      svcOrderId: null,
      reasonCode: "waiting_connection",
    });
    const note = `shop products not connected: ${[loose, plain, long].map((p) => p.variants[0]!.legacyId).join(", ")}`;
    expect(r.reasonMessage).toBe(
      `Created at the service, which keeps it among invalid orders until its products are connected (${note}).`,
    );
    expect(r.timeline.at(-1)!.message).toBe(
      `Created at the service without an order id yet: ${note}.`,
    );
    // No payment run for an order the service has not given an id.
    expect(await payJobs()).toHaveLength(0);
  });

  it("a variant connected under its GID counts as connected", async () => {
    const p = h.unconnectedProduct("Gid Lamp", "15.00");
    const { orderId } = await received([{ product: p, quantity: 1 }]);
    await prisma.productConnection.create({
      data: {
        shopDomain: SHOP,
        shopifyProductId: String(p.legacyId),
        shopifyVariantId: p.variants[0]!.id,
        sku: p.variants[0]!.sku,
        svcVid: "VID-GID-LAMP",
      },
    });
    const result = await placeOrder(h.deps, orderId);
    expect(result.outcome).not.toBe("held");
    expect((await row(orderId)).lines[0]!.svcVid).toBe("VID-GID-LAMP");
  });

  it("protected customer data withheld: held with the fix; granted: placed", async () => {
    h.shop.setProtectedCustomerData(SHOP, false);
    let orderId: string;
    try {
      ({ orderId } = await received([{ product: mug, quantity: 1 }]));
      expect(await placeOrder(h.deps, orderId)).toEqual({
        outcome: "held",
        reason: "protected_data",
      });
      expect((await row(orderId)).reasonMessage).toBe(protectedDataMessage(["name", "address"]));
    } finally {
      h.shop.setProtectedCustomerData(SHOP, true);
    }
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
  });

  it("an incomplete address is held naming the missing fields; nothing sent", async () => {
    const { orderId } = await received([{ product: mug, quantity: 1 }], {
      shippingAddress: {
        firstName: "Ada",
        lastName: "Lovelace",
        company: null,
        address1: null,
        address2: "",
        city: "",
        province: null,
        provinceCode: null,
        zip: "1000",
        country: "Belgium",
        countryCode: "BE",
        phone: null,
      } as never,
    });
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "held",
      reason: "invalid_address",
    });
    expect((await row(orderId)).reasonMessage).toBe(
      "The shipping address lacks: street address, city. Correct it in the shop, then Retry.",
    );
    expect(creates()).toHaveLength(sent);
    // An address hold is looked at again (the merchant corrects it and presses Retry).
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("held");
  });
});

// ---------------------------------------------------------------------------------------------

describe("what is placed at all", () => {
  it("the log lines of the placing carry the order and its shop", async () => {
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    const fields = await withLogContext({ jobId: "job-1" }, async () => {
      await placeOrder(h.deps, orderId);
      return currentLogContext();
    });
    expect(fields).toEqual({ jobId: "job-1", orderId, shop: SHOP });
  });

  it("skips orders that are gone, already created, or held for a reason only the merchant clears", async () => {
    expect(await placeOrder(h.deps, "no-such-order")).toEqual({
      outcome: "skipped",
      why: "order gone",
    });
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "skipped", why: "state CREATED" });
    const b = await received([{ product: mug, quantity: 1 }]);
    await prisma.shopOrder.update({
      where: { id: b.orderId },
      data: { state: "HELD", reasonCode: "merchant_hold" },
    });
    expect(await placeOrder(h.deps, b.orderId)).toEqual({ outcome: "skipped", why: "state HELD" });
    // Only a held order's reason makes it placeable: a created order with a stale reason that
    // would release a hold is still not sent again.
    await prisma.shopOrder.update({ where: { id: orderId }, data: { reasonCode: "paused" } });
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "skipped", why: "state CREATED" });
    expect(creates()).toHaveLength(sent);
  });

  it("an order the shop no longer has fails with that reason", async () => {
    const r = await receiveShopOrder(prisma, {
      shopDomain: SHOP,
      topic: "orders/paid",
      payload: { id: 99999999 },
      nowMs: h.svc.clock.now(),
    });
    expect(await placeOrder(h.deps, r.orderId!)).toEqual({
      outcome: "failed",
      reason: "create_failed",
    });
    await expectRow(
      r.orderId!,
      {
        state: "FAILED",
        reasonCode: "create_failed",
        reasonMessage: "The order was not found in the shop.",
      },
      {
        step: "create",
        outcome: "error",
        errorCode: "create_failed",
        requestId: null,
        message: "The order was not found in the shop.",
      },
    );
  });

  it("an order cancelled in the shop before placing is cancelled, not sent", async () => {
    const { placed, orderId } = await received([{ product: mug, quantity: 1 }]);
    h.shop.cancelOrder(SHOP, placed.id);
    const sent = creates().length;
    expect(await placeOrder(h.deps, orderId)).toEqual({ outcome: "cancelled" });
    const r = await expectRow(
      orderId,
      {
        state: "CANCELLED",
        reasonCode: "cancelled_in_shop",
        reasonMessage: "Cancelled in the shop before it was sent to the service.",
      },
      { step: "cancel", outcome: "info", message: "Cancelled in the shop before placing." },
    );
    expect(r.cancelledAt).toBeInstanceOf(Date);
    expect(creates()).toHaveLength(sent);
  });

  it("no line needs shipping: cancelled as nothing to ship", async () => {
    const { orderId } = await received([{ product: mug, quantity: 1, requiresShipping: false }]);
    expect(await placeOrder(h.deps, orderId)).toEqual({
      outcome: "cancelled",
      reason: "nothing_to_ship",
    });
    await expectRow(
      orderId,
      {
        state: "CANCELLED",
        reasonCode: "nothing_to_ship",
        reasonMessage: "No line of this order needs shipping: nothing is sent to the service.",
      },
      { step: "create", outcome: "info", message: "No line needs shipping." },
    );
  });

  it("lines at another fulfilment service's location are left out, or the whole order when all are", async () => {
    h.shop.addLocation(SHOP, { name: "Elsewhere FS", fulfillmentService: true });
    const all = await received([{ product: cap, quantity: 1, location: "Elsewhere FS" }]);
    expect(await placeOrder(h.deps, all.orderId)).toEqual({
      outcome: "cancelled",
      reason: "nothing_to_ship",
    });
    let r = await row(all.orderId);
    expect(r.reasonMessage).toBe(
      "Every line of this order is fulfilled by another fulfilment service's location: nothing is sent to the service.",
    );
    expect(r.timeline.at(-1)!.message).toBe(
      "1 line(s) sit at a location another fulfilment service fulfils (not visible to this app); nothing is left for the service.",
    );

    const banner = await h.connectedProduct(`Wide${" Banner".repeat(60)}`, "3.00");
    const some = await received([
      { product: mug, quantity: 1 },
      { product: cap, quantity: 2, location: "Elsewhere FS" },
      { product: cap, quantity: 1, requiresShipping: false },
      { product: banner, quantity: 1, location: "Elsewhere FS" },
    ]);
    expect((await placeOrder(h.deps, some.orderId)).outcome).toBe("created");
    r = await row(some.orderId);
    expect(r.lines.map((l) => l.shopifyLineItemId)).toEqual([
      String(some.placed.lineItems[0]!.legacyId),
    ]);
    // The left-out lines, in line order, cut to 300 characters.
    expect(r.timeline.map((t) => [t.step, t.outcome, t.message])).toContainEqual([
      "create",
      "info",
      `2 line(s) are not sent to the service: they sit at a location another fulfilment service fulfils (not visible to this app): ${`Place Cap (M / Blue); ${banner.title} (M / Blue)`.slice(0, 300)}.`,
    ]);
  });

  it("lines stored by an earlier attempt follow the shop: gone lines dropped, changed ones updated, the name refreshed", async () => {
    const { placed, orderId } = await received([{ product: mug, quantity: 2 }]);
    await prisma.shopOrder.update({ where: { id: orderId }, data: { shopifyOrderName: null } });
    const lineId = String(placed.lineItems[0]!.legacyId);
    await prisma.shopOrderLine.createMany({
      data: [
        { orderId, shopifyLineItemId: lineId, title: "old", quantity: 9, unitPrice: "1.00" },
        { orderId, shopifyLineItemId: "1", title: "removed line", quantity: 1, unitPrice: "1.00" },
      ],
    });
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    const r = await row(orderId);
    expect(r.shopifyOrderName).toBe(placed.name);
    expect(r.lines.map((l) => [l.shopifyLineItemId, l.title, l.quantity])).toEqual([
      [lineId, "Place Mug", 2],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

/**
 * An HTTP proxy in front of the service simulator that answers one operation with a given
 * error envelope (codes the simulator has no scenario for at that operation).
 */
async function refusingProxy(target: string) {
  let refusal: { path: string; code: number; message: string } | null = null;
  let dropReplies: { path: string; left: number } | null = null;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (refusal && req.url?.split("?")[0]?.endsWith(refusal.path)) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            code: refusal.code,
            result: false,
            message: refusal.message,
            data: null,
            requestId: `req-${refusal.code}`,
          }),
        );
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
      const up = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "GET" ? undefined : Buffer.concat(chunks),
      });
      const text = await up.text();
      if (
        dropReplies &&
        dropReplies.left > 0 &&
        req.url?.split("?")[0]?.endsWith(dropReplies.path)
      ) {
        // The operation ran at the service; its reply never reaches the app.
        dropReplies.left--;
        res.socket?.destroy();
        return;
      }
      res.writeHead(up.status, { "content-type": "application/json" }).end(text);
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refuse(path: string, code: number, message: string) {
      refusal = { path, code, message };
    },
    /** Forwards the next `times` calls of the operation, then drops their replies. */
    dropReplies(path: string, times: number) {
      dropReplies = { path, left: times };
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Runs `fn` with the account's service calls going through a refusingProxy. */
async function throughProxy<T>(
  fn: (proxy: Awaited<ReturnType<typeof refusingProxy>>) => Promise<T>,
) {
  const proxy = await refusingProxy(h.svc.url);
  await prisma.svcAccount.update({ where: { id: h.accountId }, data: { baseUrl: proxy.url } });
  try {
    return await fn(proxy);
  } finally {
    await prisma.svcAccount.update({ where: { id: h.accountId }, data: { baseUrl: h.svc.url } });
    await proxy.close();
  }
}

describe("the service's answers", () => {
  it("refusals fail the order with the service's code, request id and reason; nothing retried", async () => {
    await throughProxy(async (proxy) => {
      const cases: [number, string][] = [
        [1600100, "Correct the cause"],
        [1602002, "Correct the cause"],
        [1604000, "Correct the cause"],
        [1600201, "Correct the cause"],
        [1600001, "reconnect the account"],
      ];
      for (const [code, fix] of cases) {
        proxy.refuse("/shopping/order/createOrderV3", code, `refused with ${code}`);
        const { orderId } = await received([{ product: mug, quantity: 1 }]);
        expect(await placeOrder(h.deps, orderId)).toEqual({
          outcome: "failed",
          reason: "create_failed",
        });
        const r = await row(orderId);
        expect(r.state).toBe("FAILED");
        expect(r.reasonCode).toBe("create_failed");
        expect(r.reasonMessage).toContain(fix);
        expect(r.timeline.at(-1)).toMatchObject({
          step: "create",
          outcome: "error",
          errorCode: String(code),
          requestId: `req-${code}`,
        });
        expect(r.timeline.at(-1)!.message).toContain(`refused with ${code}`);
        expect(r.timeline.at(-1)!.message).toContain(r.reasonMessage!);
      }
    });
  });

  it("an unknown logistics method fails the order with the exact reasons", async () => {
    await updateSettings(prisma, SHOP, { logisticName: "Pigeon Post" });
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(h.deps, orderId)).outcome).toBe("failed");
    const r = await row(orderId);
    expect(r.reasonMessage).toBe("The service refused the order. Correct the cause, then Retry.");
    const last = r.timeline.at(-1)!;
    expect(last.errorCode).toBe("1605001");
    expect(last.requestId).toBeTruthy();
    expect(last.message).toMatch(
      /^The service refused the order\. Correct the cause, then Retry\. \(.*1605001.*\)$/,
    );
  });

  it("transient failures are retried later: the order waits with the error noted, then is created once", async () => {
    const { orderId } = await received([{ product: mug, quantity: 1 }]);
    // The service busy (its envelope carries a request id) past the client's own retries.
    await throughProxy(async (proxy) => {
      proxy.refuse("/shopping/order/createOrderV3", 1600000, "system busy");
      await expect(placeOrder(h.deps, orderId)).rejects.toBeInstanceOf(SvcBusyError);
    });
    let r = await row(orderId);
    expect(r).toMatchObject({ state: "RECEIVED", svcOrderId: null, reasonCode: null });
    expect(r.timeline.at(-1)).toMatchObject({
      step: "create",
      outcome: "error",
      errorCode: "1600000",
      requestId: "req-1600000",
    });
    expect(r.timeline.at(-1)!.message).toMatch(/^Will try again: .*system busy/);

    // Its front down (HTTP 503, no envelope).
    h.svc.setFaults({ rate5xx: 1, ops: ["createOrderV3"] });
    await expect(placeOrder(h.deps, orderId)).rejects.toBeInstanceOf(SvcServerError);
    h.svc.clearFaults();
    r = await row(orderId);
    expect(r.state).toBe("RECEIVED");
    expect(r.timeline.at(-1)!.message).toMatch(/^Will try again: /);

    expect((await placeOrder(h.deps, orderId)).outcome).toBe("created");
    r = await row(orderId);
    expect(
      h.svc.orders({ accountId: h.simAccountId }).filter((o) => o.orderNumber === r.orderNumber),
    ).toHaveLength(1);
  });

  it("a create whose reply is lost is found by its number: one order at the service, its id and amount kept", async () => {
    h.svc.setFaults({ rateTimeout: 1, ops: ["createOrderV3"], timeoutDrop: true, timeoutMs: 10 });
    const { orderId } = await received([{ product: mug, quantity: 3 }]);
    const result = await placeOrder(h.deps, orderId);
    h.svc.clearFaults();
    expect(result.outcome).toBe("created");
    const r = await row(orderId);
    const atService = h.svc
      .orders({ accountId: h.simAccountId })
      .filter((o) => o.orderNumber === r.orderNumber);
    expect(atService).toHaveLength(1);
    expect(r.svcOrderId).toBe(atService[0]!.orderId);
    expect(result).toEqual({ outcome: "created", svcOrderId: atService[0]!.orderId });
    expect(r.amount).toMatch(/^\d+\.\d\d$/);
    expect(Number(r.amount)).toBeGreaterThan(0);
    expect(r.state).toBe("CREATED");
    expect(r.reasonCode).toBeNull();
    expect(r.timeline.at(-1)!.message).toBe(
      `Created at the service as ${r.svcOrderId} (${r.amount} USD), found by its number after an unknown outcome.`,
    );
  });

  it("a store-flow create whose reply is lost waits for its connections (no second order)", async () => {
    await updateSettings(prisma, SHOP, { unconnectedLines: "send" });
    const loose = h.unconnectedProduct("Lost Reply Vase", "30.00");
    const { orderId } = await received([{ product: loose, quantity: 1 }]);
    const result = await throughProxy((proxy) => {
      proxy.dropReplies("/shopping/order/createOrderV3", 1);
      return placeOrder(h.deps, orderId);
    });
    expect(result).toEqual({ outcome: "created", svcOrderId: null });
    const r = await row(orderId);
    expect(
      h.svc.orders({ accountId: h.simAccountId }).filter((o) => o.orderNumber === r.orderNumber),
    ).toHaveLength(1);
    expect(r).toMatchObject({
      state: "CREATED",
      svcOrderId: null,
      reasonCode: "waiting_connection",
    });
    expect(r.reasonMessage).toBe(
      "Created at the service, which keeps it among invalid orders until its products are connected (exists at the service and waits for its products to be connected).",
    );
  });

  it("a created order keeps the service's id, amount and the time it was placed", async () => {
    const now = h.svc.clock.now();
    const { orderId } = await received([{ product: cap, quantity: 2 }]);
    // Sandbox switched on between receiving and placing: placed as a sandbox order.
    await updateSettings(prisma, SHOP, { sandbox: true });
    const result = await placeOrder(at(now), orderId);
    const r = await row(orderId);
    const svcOrder = h.svc.order(r.svcOrderId!)!;
    expect(result).toEqual({ outcome: "created", svcOrderId: svcOrder.orderId });
    expect(r).toMatchObject({
      state: "CREATED",
      svcAccountId: h.accountId,
      isSandbox: true,
      placedAt: new Date(now),
      shipmentOrderId: null,
      reasonCode: null,
    });
    const amount = (Number(svcOrder.orderAmount) / 100).toFixed(2);
    expect(r.amount).toBe(amount);
    expect(svcOrder.isSandbox).toBe(true);
    expect(r.timeline.map((t) => [t.step, t.outcome, t.message])).toEqual([
      ["received", "info", "Received from the shop (orders/paid)."],
      ["create", "ok", `Created at the service as ${svcOrder.orderId} (${amount} USD).`],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("the payment run after a create", () => {
  it("autoPay schedules the account's run; without autoPay, none", async () => {
    await updateSettings(prisma, SHOP, { autoPay: false });
    const a = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(h.deps, a.orderId)).outcome).toBe("created");
    expect(await payJobs()).toHaveLength(0);

    await updateSettings(prisma, SHOP, { autoPay: true });
    const b = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(h.deps, b.orderId)).outcome).toBe("created");
    const jobs = await payJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.payload).toEqual({ accountId: h.accountId });
    expect(jobs[0]!.shopDomain).toBe(SHOP);
  });

  it("a full batch runs at once; only this account's created, unbatched orders with an id count", async () => {
    const now = h.svc.clock.now();
    await updateSettings(prisma, SHOP, { payBatchWindowSeconds: 600 });
    // Take every earlier order of this account out of the count.
    await prisma.shopOrder.updateMany({
      where: { svcAccountId: h.accountId, state: "CREATED" },
      data: { state: "PAID" },
    });
    const other = await prisma.svcAccount.create({
      data: { baseUrl: h.svc.url, authMethod: "apiKey" },
    });
    let n = 0;
    const decoy = (data: Record<string, unknown>) =>
      prisma.shopOrder.create({
        data: {
          shopDomain: SHOP,
          shopifyOrderId: `77000${n}`,
          orderNumber: `decoy-${now}-${n++}`,
          svcAccountId: h.accountId,
          state: "CREATED",
          svcOrderId: `SO-decoy-${n}`,
          ...data,
        },
      });
    await decoy({ svcAccountId: other.id });
    await decoy({ state: "PAID" });
    await decoy({ svcOrderId: null });
    await decoy({ paymentBatchId: "batch-decoy" });
    await decoy({}); // one that does count

    // Two waiting (the decoy and the new one) under a batch of 3: only the window's run.
    await updateSettings(prisma, SHOP, { payBatchSize: 3 });
    const a = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(at(now), a.orderId)).outcome).toBe("created");
    let jobs = await payJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.runAt.getTime()).toBeGreaterThan(Date.now());

    // A batch of 2 is full with two waiting: a run now as well.
    await prisma.shopOrder.update({ where: { id: a.orderId }, data: { state: "PAID" } });
    await updateSettings(prisma, SHOP, { payBatchSize: 2 });
    const b = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(at(now), b.orderId)).outcome).toBe("created");
    jobs = await payJobs();
    expect(jobs).toHaveLength(2);
    const immediate = jobs.find((j) => j.runAt.getTime() <= Date.now())!;
    expect(immediate.idempotencyKey).toContain(`:full:2:${Math.floor(now / 1000)}:`);
    expect(immediate.payload).toEqual({ accountId: h.accountId });
    expect(immediate.shopDomain).toBe(SHOP);

    await prisma.shopOrder.deleteMany({ where: { orderNumber: { startsWith: `decoy-${now}` } } });
    await prisma.svcAccount.delete({ where: { id: other.id } });
  });

  it("while other creates of the shop are in flight, a short window asks for a run in 5 s", async () => {
    const now = h.svc.clock.now();
    await updateSettings(prisma, SHOP, { payBatchWindowSeconds: 1, payBatchSize: 50 });
    await prisma.job.deleteMany({ where: { kind: JOB.place, shopDomain: SHOP } });
    // Another shop's create in flight does not count.
    const decoy = await enqueue(prisma, {
      kind: JOB.place,
      idempotencyKey: `place-decoy-${now}`,
      shopDomain: "another-shop.myshopify.com",
    });
    await prisma.job.update({ where: { id: decoy.id }, data: { state: "running" } });
    /** An order created with this batch window: the pay jobs it asked for. */
    const createdWith = async (windowSeconds: number) => {
      await prisma.job.deleteMany({ where: { kind: JOB.pay } });
      await updateSettings(prisma, SHOP, { payBatchWindowSeconds: windowSeconds });
      const o = await received([{ product: mug, quantity: 1 }]);
      expect((await placeOrder(at(now), o.orderId)).outcome).toBe("created");
      return payJobs();
    };
    const key = (ms: number) => `pay:${h.accountId}:w${ms}:${Math.ceil(now / ms)}`;
    // The order's own place job is the only one: the last create, the window holds.
    expect((await createdWith(1)).map((j) => j.idempotencyKey)).toEqual([key(1000)]);
    // The first order's place job still due: the run comes at the next 5 s, not the second's end.
    expect((await createdWith(1)).map((j) => j.idempotencyKey)).toEqual([key(5000)]);
    // A due order delivery of the trigger topic is a create in flight too (an order due at once
    // is placed in its delivery's job); one of another topic is not.
    const delivery = (kind: string) =>
      enqueue(prisma, { kind, idempotencyKey: `${kind}-${now}`, shopDomain: SHOP });
    await prisma.job.deleteMany({ where: { kind: JOB.place, shopDomain: SHOP } });
    await delivery("shopify:orders/create");
    expect((await createdWith(1)).map((j) => j.idempotencyKey)).toEqual([key(1000)]);
    await prisma.job.deleteMany({ where: { kind: JOB.place, shopDomain: SHOP } });
    await delivery("shopify:orders/paid");
    expect((await createdWith(1)).map((j) => j.idempotencyKey)).toEqual([key(5000)]);
    await prisma.job.deleteMany({ where: { kind: { startsWith: "shopify:" }, shopDomain: SHOP } });
    // A window of 5 s or more holds as it is, creates in flight or not.
    expect((await createdWith(600)).map((j) => j.idempotencyKey)).toEqual([key(600_000)]);
    // No window: a run at once, creates in flight or not.
    const jobs = await createdWith(0);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.idempotencyKey).not.toContain(":w");
    expect(jobs[0]!.runAt.getTime()).toBeLessThanOrEqual(Date.now());
    await prisma.job.deleteMany({ where: { id: decoy.id } });
  });

  it("with no batch window there is only the immediate run", async () => {
    await updateSettings(prisma, SHOP, { payBatchSize: 1 });
    const a = await received([{ product: mug, quantity: 1 }]);
    expect((await placeOrder(h.deps, a.orderId)).outcome).toBe("created");
    const jobs = await payJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.idempotencyKey).not.toContain(":full:");
  });
});

// ---------------------------------------------------------------------------------------------
// Pure functions

const address = (o: Partial<NonNullable<ShopifyOrder["shippingAddress"]>> = {}) => ({
  firstName: "Ada",
  lastName: "Lovelace",
  company: null,
  address1: "1 Main St",
  address2: null,
  city: "Springfield",
  province: "Illinois",
  provinceCode: "IL",
  zip: "62701",
  country: "United States",
  countryCode: "US",
  phone: null,
  ...o,
});

const shopOrder = (o: Partial<ShopifyOrder> = {}): ShopifyOrder =>
  ({
    id: "gid://shopify/Order/1",
    name: "#1001",
    email: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    cancelledAt: null,
    currencyCode: "USD",
    financialStatus: "PAID",
    fulfillmentStatus: "UNFULFILLED",
    shippingAddress: address(),
    riskRecommendation: "ACCEPT",
    lines: [],
    fulfillmentOrders: [],
    fulfillments: [],
    ...o,
  }) as ShopifyOrder;

const line = (o: Partial<LineRow> = {}): LineRow => ({
  id: "l1",
  orderId: "o1",
  shopifyLineItemId: "501",
  shopifyProductId: "601",
  shopifyVariantId: "701",
  sku: "SKU-1",
  title: "Mug",
  variantTitle: null,
  variantOptions: "M-Blue",
  image: "https://cdn.example.com/m.png",
  quantity: 2,
  unitPrice: "9.50",
  unitPriceUsd: null,
  requiresShipping: true,
  svcVid: "VID-1",
  fulfilledQuantity: 0,
  ...o,
});

const settings = (o: Partial<ShopSettings> = {}): ShopSettings => ({
  ...DEFAULT_SETTINGS,
  logisticName: "SvcPacket Ordinary",
  ...o,
});

describe("buildCreateRequest", () => {
  const NOW = Date.parse("2026-02-01T00:00:00.000Z");
  const build = (so: ShopifyOrder, lines = [line()], s = settings()) =>
    buildCreateRequest({ orderNumber: "n-1" }, so, lines, s, NOW);

  it("a line with a variant goes by the shop's variant id; one without, by the catalog vid and its sku", () => {
    const r = build(shopOrder(), [
      line(),
      line({ shopifyLineItemId: "502", shopifyVariantId: null, svcVid: "VID-9", sku: "SKU-9" }),
      line({ shopifyLineItemId: "503", shopifyVariantId: null, svcVid: null, sku: null }),
    ]);
    expect(r.products).toEqual([
      {
        vid: "701",
        storeProductId: "601",
        storeProductImg: "https://cdn.example.com/m.png",
        storeLineItemId: "501",
        storeProductName: "Mug",
        storeSku: "SKU-1",
        variantOptions: "M-Blue",
        quantity: 2,
        unitPrice: "9.50",
      },
      expect.objectContaining({ vid: "VID-9", sku: "SKU-9", storeLineItemId: "502" }),
      expect.objectContaining({ vid: undefined, sku: undefined, storeLineItemId: "503" }),
    ]);
  });

  it("cuts long texts to the contract's lengths and leaves out an image URL that is too long", () => {
    const long = (n: number) => "x".repeat(n);
    const r = build(shopOrder({ email: `${long(40)}@example.com` }), [
      line({
        shopifyVariantId: long(60),
        shopifyProductId: long(70),
        shopifyLineItemId: long(130),
        title: long(510),
        sku: long(70),
        variantOptions: long(210),
        image: `https://${long(500)}`,
      }),
      line({
        shopifyVariantId: null,
        svcVid: long(60),
        sku: long(60),
        image: `https://${long(492)}`,
      }),
    ]);
    const [a, b] = r.products;
    expect(a).toMatchObject({
      vid: long(50),
      storeProductId: long(64),
      storeLineItemId: long(125),
      storeProductName: long(500),
      storeSku: long(60),
      variantOptions: long(200),
      storeProductImg: undefined,
    });
    expect(b).toMatchObject({
      vid: long(50),
      sku: long(50),
      storeProductImg: `https://${long(492)}`,
    });
    expect(r.email).toBeUndefined();
    expect(build(shopOrder({ email: `${long(38)}@example.com` })).email).toBe(
      `${long(38)}@example.com`,
    );
  });

  it("the recipient and address: street fallbacks, province and country fallbacks, phone digits, upper-case code", () => {
    const r = build(
      shopOrder({
        shippingAddress: address({
          firstName: "  ",
          lastName: "Hopper",
          address1: "  ",
          address2: "Suite 9",
          province: "",
          provinceCode: "",
          country: "",
          countryCode: "us",
          zip: "x".repeat(25),
          phone: "+1 (555) 010-0000 ext. 123456789012345",
        }),
      }),
    );
    expect(r).toMatchObject({
      orderNumber: "n-1",
      orderFlow: 2,
      shippingCustomerName: "Hopper",
      shippingAddress: "Suite 9",
      shippingAddress2: undefined,
      shippingCity: "Springfield",
      // Never the city (issue 35): the address has no province, so none is sent.
      shippingProvince: undefined,
      shippingCountryCode: "US",
      shippingCountry: "us",
      shippingZip: "x".repeat(20),
      shippingPhone: "+1555010000012345678",
    });
    expect(r.shippingPhone!.length).toBeLessThanOrEqual(20);
    const withCode = build(
      shopOrder({ shippingAddress: address({ province: "", provinceCode: "IL" }) }),
    );
    expect(withCode.shippingProvince).toBe("IL");
    const company = build(
      shopOrder({ shippingAddress: address({ firstName: null, lastName: null, company: "ACME" }) }),
    );
    expect(company.shippingCustomerName).toBe("ACME");
    const blankNames = build(
      shopOrder({ shippingAddress: address({ firstName: " ", lastName: " ", company: "ACME" }) }),
    );
    expect(blankNames.shippingCustomerName).toBe("ACME");
    expect(
      build(shopOrder({ shippingAddress: address({ phone: "ext." }) })).shippingPhone,
    ).toBeUndefined();
    expect(build(shopOrder()).shippingPhone).toBeUndefined();
    expect(
      build(shopOrder({ shippingAddress: address({ address1: "1 Main St", address2: "Apt 2" }) })),
    ).toMatchObject({ shippingAddress: "1 Main St", shippingAddress2: "Apt 2" });
    expect(
      build(shopOrder({ shippingAddress: address({ address1: null, address2: "Unit 4" }) })),
    ).toMatchObject({ shippingAddress: "Unit 4", shippingAddress2: undefined });
  });

  it("the order time is the shop's creation time in seconds, never later than now, and now when unreadable", () => {
    expect(build(shopOrder({ createdAt: "2026-01-01T00:00:00.999Z" })).storeOrderTime).toBe(
      Date.parse("2026-01-01T00:00:00.000Z") / 1000,
    );
    expect(build(shopOrder({ createdAt: "2027-01-01T00:00:00Z" })).storeOrderTime).toBe(NOW / 1000);
    expect(build(shopOrder({ createdAt: "not a date" })).storeOrderTime).toBe(NOW / 1000);
  });

  it("settings: logistics, origin, warehouse only for type 1 with an id, IOSS number when set, sandbox", () => {
    const same = {
      logisticName: "USPS",
      fromCountryCode: "DE",
      shopLogisticsType: 1,
      storageId: "W1",
      iossType: 3,
      iossNumber: "IM9",
    };
    // An EU destination: the IOSS settings go as they are.
    const toEu = shopOrder({
      shippingAddress: address({ country: "Germany", countryCode: "DE", province: null }),
    });
    const r = build(toEu, [line()], settings({ ...same, sandbox: true }));
    expect(r).toMatchObject({
      ...same,
      isSandbox: 1,
      platform: "Shopify",
    });
    const plain = build(shopOrder(), [line()], settings({ shopLogisticsType: 1, storageId: "" }));
    expect(plain).not.toHaveProperty("storageId");
    expect(plain).not.toHaveProperty("iossNumber");
    expect(plain.isSandbox).toBe(0);
    expect(
      build(shopOrder(), [line()], settings({ shopLogisticsType: 2, storageId: "W1" })),
    ).not.toHaveProperty("storageId");
  });
});

describe("missingShipping", () => {
  const missing = (a: Partial<NonNullable<ShopifyOrder["shippingAddress"]>> | null) =>
    missingShipping(shopOrder({ shippingAddress: a === null ? null : address(a) }));

  it("names each missing field, nothing for a complete address", () => {
    expect(missing({})).toEqual([]);
    expect(missing(null)).toEqual(["the whole shipping address"]);
    expect(missing({ firstName: " ", lastName: null, company: " " })).toEqual(["recipient name"]);
    expect(missing({ firstName: " ", lastName: " ", company: null })).toEqual(["recipient name"]);
    expect(missing({ firstName: null, lastName: null, company: "ACME" })).toEqual([]);
    expect(missing({ firstName: "Ada", lastName: null })).toEqual([]);
    expect(missing({ address1: " ", address2: null })).toEqual(["street address"]);
    expect(missing({ address1: null, address2: " " })).toEqual(["street address"]);
    expect(missing({ address1: null, address2: "Unit 4" })).toEqual([]);
    expect(missing({ address1: "1 Main", address2: " " })).toEqual([]);
    expect(missing({ city: " " })).toEqual(["city"]);
    expect(missing({ city: null })).toEqual(["city"]);
    expect(missing({ countryCode: null })).toEqual(["country code"]);
    expect(missing({ countryCode: "USA" })).toEqual(["country code"]);
    expect(missing({ countryCode: "XUS" })).toEqual(["country code"]);
    expect(missing({ countryCode: "U1" })).toEqual(["country code"]);
    expect(missing({ countryCode: "us" })).toEqual([]);
    expect(missing({ country: null })).toEqual([]);
    expect(missing({ country: " ", countryCode: null })).toEqual(["country code", "country"]);
    expect(missing({ country: "France", countryCode: null })).toEqual(["country code"]);
    expect(
      missing({ firstName: null, lastName: null, address1: null, city: null, countryCode: "1" }),
    ).toEqual(["recipient name", "street address", "city", "country code"]);
  });
});

describe("protectedDataMessage and isRetryable", () => {
  it("names what is withheld and the fix, without customer data", () => {
    expect(protectedDataMessage(["name"])).toMatch(
      /^Shopify withholds the customer's name from this app: /,
    );
    expect(protectedDataMessage(["address"])).toMatch(
      /^Shopify withholds the customer's address from/,
    );
    expect(protectedDataMessage(["name", "address"])).toBe(
      "Shopify withholds the customer's name and address from this app: the app's protected customer data access " +
        "(level 2: name, email, phone, address) has not been granted. The app owner requests it in the " +
        "Partner Dashboard → API access → Protected customer data (select name, email, phone and address, " +
        "give the reasons, and for a public app submit it for review); once granted, the order goes on by " +
        "itself, or press Retry.",
    );
  });

  it("retries what may succeed later: retryable errors, unknown outcomes, anything not from the service", () => {
    expect(isRetryable(new SvcRateLimitError({ operation: "x", message: "m" }))).toBe(true);
    expect(isRetryable(new SvcError({ operation: "x", message: "m", outcomeUnknown: true }))).toBe(
      true,
    );
    expect(isRetryable(new SvcError({ operation: "x", message: "m" }))).toBe(false);
    expect(isRetryable(new Error("socket"))).toBe(true);
  });
});
