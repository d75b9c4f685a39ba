/**
 * Service webhooks and several accounts (app/webhooks/svc.server.ts, svc-route.server.ts):
 * shops connected to one service account share one callback secret, so an event is routed to
 * the shop that owns its order, and never to a shop of another account; two accounts' events
 * with the same messageId never dedupe against each other; the `sign` header is checked against
 * every open id on the secret.
 */
import { createHmac, randomBytes } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "../../app/db.server";
import { logger } from "../../app/logger.server";
import { action as svcWebhook } from "../../app/routes/webhooks.svc.$secret";
import { webhookSecretColumns } from "../../app/svc/webhook-secret.server";
import { callRoute } from "../helpers/remix";

const SHARED = randomBytes(32).toString("base64url");
const SOLO = randomBytes(32).toString("base64url");
const OTHER = randomBytes(32).toString("base64url");

// Created in this order; looked up by id, so "acct-a" comes first though created second.
const ACCOUNTS = [
  { id: "acct-z", shopDomain: "zed.myshopify.com", openId: null, secret: SHARED },
  { id: "acct-a", shopDomain: "alpha.myshopify.com", openId: "OPEN-1", secret: SHARED },
  { id: "acct-m", shopDomain: "mid.myshopify.com", openId: "OPEN-2", secret: SHARED },
  { id: "acct-s", shopDomain: "solo.myshopify.com", openId: null, secret: SOLO },
  { id: "acct-o", shopDomain: "other.myshopify.com", openId: "OPEN-1", secret: OTHER },
  // Released from its shop (detached) but still holding the shared secret's hash.
  { id: "acct-0", shopDomain: null, openId: "OPEN-9", secret: SHARED },
] as const;
const [Z, A, M, S, O] = ACCOUNTS.map((a) => a.shopDomain) as [
  string,
  string,
  string,
  string,
  string,
];

const hmac = (raw: string, key: string) => createHmac("sha256", key).update(raw).digest("base64");

async function send(secret: string, body: object, opts: { signWith?: string; sign?: string } = {}) {
  const raw = JSON.stringify(body);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (opts.signWith) headers.sign = hmac(raw, opts.signWith);
  if (opts.sign !== undefined) headers.sign = opts.sign;
  const request = new Request(`https://app.test/webhooks/svc/${secret}`, {
    method: "POST",
    body: raw,
    headers,
  });
  return callRoute(svcWebhook, request, { secret });
}

const event = (messageId: string, type: string, params: unknown) => ({
  messageId,
  type,
  messageType: "UPDATE",
  params,
});

/** Every stored event: shop, key, topic, ignored reason, and whether it has a job. */
async function stored() {
  const events = await prisma.webhookEvent.findMany({ orderBy: [{ shopDomain: "asc" }] });
  const jobs = await prisma.job.findMany();
  return events.map((e) => ({
    shop: e.shopDomain,
    key: e.eventKey,
    topic: e.topic,
    ignored: e.ignoredReason,
    job: jobs.some((j) => j.id === e.jobId && j.shopDomain === e.shopDomain),
  }));
}

beforeAll(async () => {
  for (const a of ACCOUNTS) {
    await prisma.svcAccount.create({
      data: {
        id: a.id,
        shopDomain: a.shopDomain,
        openId: a.openId,
        baseUrl: "http://svc.test",
        authMethod: "apiKey",
        ...webhookSecretColumns(a.secret),
      },
    });
  }
  const order = (shopDomain: string, orderNumber: string, svcOrderId?: string) =>
    prisma.shopOrder.create({
      data: { shopDomain, shopifyOrderId: orderNumber, orderNumber, svcOrderId },
    });
  await order(A, "ON-A", "SO-A");
  await order(A, "ON-A2", "SO-BOTH");
  await order(M, "ON-M", "SO-BOTH");
  const split = await order(M, "ON-M2", "SO-M-PARENT");
  await prisma.shipment.create({ data: { orderId: split.id, svcOrderId: "SO-M-SPLIT" } });
  await order(O, "ON-O", "SO-O");
  await order(Z, "ON-Z", undefined);
});
beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
});

describe("order events on a shared secret go to the shop that owns the order", () => {
  it.each([
    ["its service order id", { orderId: "SO-A" }, [A]],
    ["its order number", { orderNumber: "ON-M" }, [M]],
    ["a split shipment's service order id", { orderId: "SO-M-SPLIT" }, [M]],
    ["ids owned by two shops of the account", { orderIds: ["SO-BOTH"] }, [A, M]],
    ["an order number in a string of params", JSON.stringify({ orderNumber: "ON-Z" }), [Z]],
  ])("found by %s", async (_name, params, shops) => {
    const res = await send(SHARED, event("r-1", "LOGISTIC", params));
    expect(res.status).toBe(200);
    const ids = Object.fromEntries(ACCOUNTS.map((a) => [a.shopDomain, a.id]));
    expect(await stored()).toEqual(
      [...shops].sort().map((shop) => ({
        shop,
        key: `${ids[shop]}:r-1`,
        topic: "LOGISTIC",
        ignored: null,
        job: true,
      })),
    );
  });

  it("an order owned only by a shop of another account: stored ignored on the first account, the other shop untouched", async () => {
    for (const type of ["ORDER", "ORDERSPLIT", "LOGISTIC"]) {
      expect((await send(SHARED, event(`x-${type}`, type, { orderId: "SO-O" }))).status).toBe(200);
    }
    expect(await stored()).toEqual(
      ["ORDER", "ORDERSPLIT", "LOGISTIC"].map((type) => ({
        shop: A,
        key: `acct-a:x-${type}`,
        topic: type,
        ignored: "no shop on this service account owns the order",
        job: false,
      })),
    );
    expect(await prisma.job.count()).toBe(0);
  });

  it("an order event naming no order: stored ignored on the first account by id", async () => {
    expect((await send(SHARED, event("n-1", "ORDER", { status: "x" }))).status).toBe(200);
    expect(await stored()).toEqual([
      {
        shop: A,
        key: "acct-a:n-1",
        topic: "ORDER",
        ignored: "no order id to tell which shop it belongs to",
        job: false,
      },
    ]);
  });

  it("an unknown type: one event on the first account by id, the same one when redelivered", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await send(SHARED, event("u-1", "REFUND", { orderId: "SO-M-SPLIT" }))).status).toBe(
        200,
      );
    }
    expect(await stored()).toEqual([
      {
        shop: A,
        key: "acct-a:u-1",
        topic: "REFUND",
        ignored: "unknown event type REFUND",
        job: false,
      },
    ]);
  });

  it.each(["PRODUCT", "VARIANT", "STOCK"])(
    "a %s event goes to every shop of the account, and to no detached account",
    async (type) => {
      expect((await send(SHARED, event("p-1", type, { vid: "V1" }))).status).toBe(200);
      expect(await stored()).toEqual(
        [
          { shop: A, id: "acct-a" },
          { shop: M, id: "acct-m" },
          { shop: Z, id: "acct-z" },
        ].map(({ shop, id }) => ({
          shop,
          key: `${id}:p-1`,
          topic: type,
          ignored: null,
          job: true,
        })),
      );
    },
  );

  it("a lone account takes its order events even for an order it does not know yet", async () => {
    expect((await send(SOLO, event("s-1", "ORDER", { orderId: "SO-UNSEEN" }))).status).toBe(200);
    expect(await stored()).toEqual([
      { shop: S, key: "acct-s:s-1", topic: "ORDER", ignored: null, job: true },
    ]);
  });

  it("an order event the pipeline would do nothing with is stored ignored, with no job", async () => {
    const sent = [
      event("s-2", "ORDER", {}),
      event("s-3", "ORDER", { orderId: "SO-1", orderStatus: "UNPAID" }),
      event("s-4", "ORDER", { orderId: "SO-1", orderStatus: "PAID" }),
      event("s-5", "LOGISTIC", {}),
      // News: a tracking number, a shipped status, a connected store order, a parcel update.
      event("s-6", "ORDER", { orderId: "SO-1", orderStatus: "PAID", trackNumber: "TN1" }),
      event("s-7", "ORDER", { orderId: "SO-1", orderStatus: "SHIPPED" }),
      {
        ...event("s-8", "ORDER", { orderNumber: "1001", orderStatus: "UNSHIPPED" }),
        messageType: "ORDER_CONNNECTED",
      },
      event("s-9", "LOGISTIC", { orderId: "SO-1" }),
    ];
    for (const body of sent) expect((await send(SOLO, body)).status).toBe(200);
    const rows = (await stored())
      .map((r) => [r.key, r.ignored, r.job])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      ["acct-s:s-2", "no order id in the event", false],
      ["acct-s:s-3", "no tracking in the event", false],
      ["acct-s:s-4", "no tracking in the event", false],
      ["acct-s:s-5", "no order id in the event", false],
      ["acct-s:s-6", null, true],
      ["acct-s:s-7", null, true],
      ["acct-s:s-8", null, true],
      ["acct-s:s-9", null, true],
    ]);
  });
});

describe("two accounts, one messageId", () => {
  it("never dedupe against each other: each account stores its own event and job", async () => {
    const body = event("same-id", "LOGISTIC", { orderId: "SO-O" });
    for (const secret of [SOLO, OTHER, SOLO, OTHER]) {
      expect((await send(secret, body)).status).toBe(200);
    }
    expect(await stored()).toEqual([
      { shop: O, key: "acct-o:same-id", topic: "LOGISTIC", ignored: null, job: true },
      { shop: S, key: "acct-s:same-id", topic: "LOGISTIC", ignored: null, job: true },
    ]);
    // And on the shared secret, the same id once per shop it was routed to.
    expect((await send(SHARED, { ...body, params: { orderId: "SO-BOTH" } })).status).toBe(200);
    expect((await stored()).map((e) => e.key)).toEqual([
      "acct-a:same-id",
      "acct-m:same-id",
      "acct-o:same-id",
      "acct-s:same-id",
    ]);
    expect(await prisma.job.count()).toBe(4);
  });
});

describe("the sign header with several open ids", () => {
  const body = event("sig-1", "LOGISTIC", { orderId: "SO-A" });

  it("is accepted when made with any open id on the secret", async () => {
    expect((await send(SHARED, body, { signWith: "OPEN-2" })).status).toBe(200);
    expect(
      (await send(SHARED, { ...body, messageId: "sig-2" }, { signWith: "OPEN-1" })).status,
    ).toBe(200);
    expect((await stored()).map((e) => e.key)).toEqual(["acct-a:sig-1", "acct-a:sig-2"]);
  });

  it("is refused when made with an open id of another secret's or a detached account", async () => {
    for (const key of ["OPEN-9", "OPEN-3", "x"]) {
      const res = await send(SHARED, body, { signWith: key });
      expect([res.status, await res.json()]).toEqual([401, { code: 401, result: "bad signature" }]);
    }
    // An open id of the shared secret does not sign for another secret.
    expect((await send(OTHER, body, { signWith: "OPEN-2" })).status).toBe(401);
    expect(await prisma.webhookEvent.count()).toBe(0);
  });

  it("without any open id on the secret a well-formed sign cannot be checked: taken, with a warning", async () => {
    const warn = vi.spyOn(logger, "warn");
    try {
      expect((await send(SOLO, body, { signWith: "anything" })).status).toBe(200);
      expect(warn.mock.calls.map(([fields]) => fields)).toEqual([{ svcAccountId: "acct-s" }]);
      warn.mockClear();
      // Still refused: a sign that is not even a Base64 HMAC.
      expect((await send(SOLO, { ...body, messageId: "sig-3" }, { sign: "abc" })).status).toBe(401);
      // Checked, no warning, where an open id is known.
      expect(
        (await send(SHARED, { ...body, messageId: "sig-4" }, { signWith: "OPEN-1" })).status,
      ).toBe(200);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    expect((await stored()).map((e) => e.key)).toEqual(["acct-a:sig-4", "acct-s:sig-1"]);
  });
});
