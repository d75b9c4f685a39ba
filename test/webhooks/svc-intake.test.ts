import { createHmac, randomBytes } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "../../app/db.server";
import { handlers } from "../../app/worker/registry.server";
import { logger } from "../../app/logger.server";
import { webhookSecretColumns } from "../../app/svc/webhook-secret.server";
import { SVC_EVENT_TYPES } from "../../app/svc/events";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as svcWebhook } from "../../app/routes/webhooks.svc.$secret";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, validSign } from "../../app/webhooks/svc.server";
import { callRoute } from "../helpers/remix";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";

const SHOP = "svc-intake.myshopify.com";
const OPEN_ID = "1234567890";
const SECRET = randomBytes(32).toString("base64url");

function svcRequest(body: string | object, opts: { secret?: string; sign?: string } = {}) {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (opts.sign !== undefined) headers.sign = opts.sign;
  return {
    request: new Request(`https://app.test/webhooks/svc/${opts.secret ?? SECRET}`, {
      method: "POST",
      body: raw,
      headers,
    }),
    params: { secret: opts.secret ?? SECRET },
  };
}
const sign = (raw: string, key = OPEN_ID) => createHmac("sha256", key).update(raw).digest("base64");

async function send(body: string | object, opts: { secret?: string; sign?: string } = {}) {
  const { request, params } = svcRequest(body, opts);
  return callRoute(svcWebhook, request, params);
}

const logistic = (messageId: string) => ({
  messageId,
  type: "LOGISTIC",
  messageType: "UPDATE",
  openId: OPEN_ID,
  params: { orderId: "SO-1", trackingNumber: "TRACK1", trackingStatus: 2 },
});

beforeAll(async () => {
  await prisma.svcAccount.create({
    data: {
      shopDomain: SHOP,
      baseUrl: "http://svc.test",
      authMethod: "apiKey",
      openId: OPEN_ID,
      ...webhookSecretColumns(SECRET),
    },
  });
});
beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
});

describe("service webhook intake", () => {
  it("stores an event with its job and answers the service's success body", async () => {
    const raw = JSON.stringify(logistic("m-1"));
    const res = await send(raw, { sign: sign(raw) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ code: 200, result: "success" });
    const event = await prisma.webhookEvent.findFirstOrThrow();
    expect(event).toMatchObject({ source: "svc", shopDomain: SHOP, topic: "LOGISTIC" });
    const job = await prisma.job.findFirstOrThrow();
    expect(job.kind).toBe("svc:LOGISTIC");
  });

  it("dedupes on messageId: a redelivery answers success and adds nothing", async () => {
    for (let i = 0; i < 3; i++) expect((await send(logistic("m-dup"))).status).toBe(200);
    expect(await prisma.webhookEvent.count()).toBe(1);
    expect(await prisma.job.count()).toBe(1);
  });

  it("accepts a request without a sign header, and a numeric messageId", async () => {
    const res = await send({ ...logistic("x"), messageId: 987654321 });
    expect(res.status).toBe(200);
    expect((await prisma.webhookEvent.findFirstOrThrow()).eventKey).toMatch(/:987654321$/);
  });

  it.each([
    [
      "an unknown secret",
      () => send(logistic("a"), { secret: randomBytes(32).toString("base64url") }),
      404,
    ],
    ["a malformed secret", () => send(logistic("a"), { secret: "../../etc" }), 404],
    ["a body over 256 KB", () => send({ ...logistic("a"), pad: "x".repeat(MAX_BODY_BYTES) }), 413],
    ["a body that is not JSON", () => send("{not json"), 400],
    ["JSON that is not an event", () => send({ hello: "world" }), 400],
    ["an event without messageId", () => send({ type: "ORDER", params: {} }), 400],
    ["a wrong sign", () => send(logistic("a"), { sign: sign("other body") }), 401],
    ["an empty sign", () => send(logistic("a"), { sign: "" }), 401],
    ["a blank sign", () => send(logistic("a"), { sign: "   " }), 401],
    [
      "a sign that is not Base64 of 32 bytes",
      () => send(logistic("a"), { sign: "bm90IGEgc2lnbg==" }),
      401,
    ],
    [
      "JSON nested deeper than the limit",
      () =>
        send(`{"messageId":"d","type":"ORDER","params":${"[".repeat(5000)}${"]".repeat(5000)}}`),
      400,
    ],
    [
      "a sign made with another key",
      () => {
        const raw = JSON.stringify(logistic("a"));
        return send(raw, { sign: sign(raw, "999") });
      },
      401,
    ],
  ])("rejects %s with a 4xx and writes nothing", async (_name, call, status) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(await prisma.webhookEvent.count()).toBe(0);
    expect(await prisma.job.count()).toBe(0);
  });

  it("an event type nothing handles is stored, marked ignored, with no job", async () => {
    const body = { ...logistic("u-1"), type: "DISPUTE_NOTICE" };
    const raw = JSON.stringify(body);
    const res = await send(raw, { sign: sign(raw) });
    expect(res.status).toBe(200);
    const event = await prisma.webhookEvent.findFirstOrThrow();
    expect(event).toMatchObject({ topic: "DISPUTE_NOTICE", jobId: null });
    expect(event.ignoredReason).toMatch(/unknown event type/);
    expect(await prisma.job.count()).toBe(0);
    // Redelivered: still one row.
    expect((await send(raw, { sign: sign(raw) })).status).toBe(200);
    expect(await prisma.webhookEvent.count()).toBe(1);
  });

  it("every known event type has a job handler, and no other service kind has one", () => {
    const svcKinds = Object.keys(handlers).filter((k) => k.startsWith("svc:"));
    expect(svcKinds.sort()).toEqual(SVC_EVENT_TYPES.map((t) => `svc:${t}`).sort());
  });

  it("nesting up to the limit is accepted", async () => {
    const depth = MAX_JSON_DEPTH - 2; // the envelope and params are two levels
    const params = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const res = await send(`{"messageId":"ok-deep","type":"ORDER","params":${params}}`);
    expect(res.status).toBe(200);
    // A bracket inside a string does not count.
    const quoted = await send({ ...logistic("q"), params: { note: "[".repeat(5000) } });
    expect(quoted.status).toBe(200);
  });

  it("finds the account by the hash of the secret, never by the legacy clear column", async () => {
    const legacy = randomBytes(32).toString("base64url");
    await prisma.svcAccount.create({
      data: {
        shopDomain: "legacy.myshopify.com",
        baseUrl: "http://svc.test",
        authMethod: "apiKey",
        webhookSecret: legacy,
      },
    });
    try {
      expect((await send(logistic("l-1"), { secret: legacy })).status).toBe(404);
    } finally {
      await prisma.svcAccount.delete({ where: { shopDomain: "legacy.myshopify.com" } });
    }
  });

  it("1,000 malformed, oversized or forged requests of both kinds: all 4xx, none 5xx, no rows", async () => {
    const big = "y".repeat(MAX_BODY_BYTES + 10);
    const makers: Array<(i: number) => Promise<Response>> = [
      (i) => send(`{"messageId":"${i}",`),
      (i) => send({ messageId: String(i), type: "lower-case", params: {} }),
      (i) => send({ messageId: String(i), type: "ORDER" }),
      (i) => send(big + i),
      (i) => send(logistic(String(i)), { sign: "AAAA" }),
      (i) => send(logistic(String(i)), { secret: `unknown-secret-${i}-xxxxxxxxxxxx` }),
      (i) => send(String(i)),
      (i) =>
        callRoute(
          ordersCreate,
          shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
            topic: "orders/create",
            shop: SHOP,
            body: { id: i },
            secret: `forged-${i}`,
          }),
        ),
      (i) => {
        const req = shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
          topic: "orders/create",
          shop: SHOP,
          body: { id: i },
        });
        const headers = new Headers(req.headers);
        headers.delete("X-Shopify-Hmac-Sha256");
        return callRoute(
          ordersCreate,
          new Request(req.url, { method: "POST", headers, body: JSON.stringify({ id: i }) }),
        );
      },
      (i) => {
        // Signed for one body, sent with another.
        const req = shopifyWebhookRequest("https://app.test/webhooks/orders/create", {
          topic: "orders/create",
          shop: SHOP,
          body: { id: i },
        });
        return callRoute(
          ordersCreate,
          new Request(req.url, { method: "POST", headers: req.headers, body: `{"id":${i + 1}}` }),
        );
      },
    ];
    const statuses = new Map<number, number>();
    for (let start = 0; start < 1000; start += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, (_, k) => makers[(start + k) % makers.length]!(start + k)),
      );
      for (const r of batch) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
    const all = [...statuses.entries()];
    expect(all.reduce((n, [, c]) => n + c, 0)).toBe(1000);
    expect(all.every(([s]) => s >= 400 && s < 500)).toBe(true);
    expect(await prisma.webhookEvent.count()).toBe(0);
    expect(await prisma.job.count()).toBe(0);
  });
});

const nothingStored = async () => {
  expect(await prisma.webhookEvent.count()).toBe(0);
  expect(await prisma.job.count()).toBe(0);
};

describe("what the service webhook takes, at the edges", () => {
  it("answers only POST: any other method is 405 and stores nothing", async () => {
    const raw = JSON.stringify(logistic("put-1"));
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const request = new Request(`https://app.test/webhooks/svc/${SECRET}`, {
        method,
        body: raw,
        headers: { "Content-Type": "application/json", sign: sign(raw) },
      });
      const res = await callRoute(svcWebhook, request, { secret: SECRET });
      expect([res.status, await res.json()]).toEqual([
        405,
        { code: 405, result: "method not allowed" },
      ]);
    }
    await nothingStored();
  });

  it("answers JSON in the service's reply shape, refusals included", async () => {
    const ok = await send(logistic("shape-1"));
    const bad = await send(logistic("shape-2"), { sign: "" });
    for (const res of [ok, bad]) expect(res.headers.get("content-type")).toBe("application/json");
    expect(await bad.json()).toEqual({ code: 401, result: "bad signature" });
  });

  it("says why in the reply body", async () => {
    const why = async (res: Promise<Response>) => (await res).json();
    expect(await why(send(logistic("w"), { secret: "short" }))).toEqual({
      code: 404,
      result: "not found",
    });
    expect(
      await why(send(logistic("w"), { secret: randomBytes(32).toString("base64url") })),
    ).toEqual({ code: 404, result: "not found" });
    expect(await why(send(`{"messageId":"w","type":"ORDER","params":${"[".repeat(40)}}`))).toEqual({
      code: 400,
      result: "body nests too deeply",
    });
    expect(await why(send('{"messageId":"w",'))).toEqual({ code: 400, result: "body is not JSON" });
    await nothingStored();
  });

  it("the body limit is 256 KiB: 262,144 bytes are taken, one byte more is a 413", async () => {
    const padded = (messageId: string, size: number) => {
      const base = JSON.stringify({ ...logistic(messageId), pad: "" });
      return JSON.stringify({ ...logistic(messageId), pad: "x".repeat(size - base.length) });
    };
    const exact = padded("limit-ok", 262_144);
    expect(Buffer.byteLength(exact)).toBe(262_144);
    expect((await send(exact, { sign: sign(exact) })).status).toBe(200);
    const over = padded("limit-over", 262_145);
    const res = await send(over, { sign: sign(over) });
    expect([res.status, await res.json()]).toEqual([413, { code: 413, result: "body too large" }]);
    expect(await prisma.webhookEvent.findMany({ select: { eventKey: true } })).toEqual([
      { eventKey: expect.stringMatching(/:limit-ok$/) },
    ]);
  });

  it("a body that breaks off while being read is an error (the service retries), not a 413, nothing stored", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"messageId":"cut","type":"LOGISTIC",'));
        c.error(new Error("connection reset"));
      },
    });
    const request = new Request(`https://app.test/webhooks/svc/${SECRET}`, {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    await expect(callRoute(svcWebhook, request, { secret: SECRET })).rejects.toThrow(
      "connection reset",
    );
    await nothingStored();
  });

  it.each([
    ["a one-letter type", { type: "A" }],
    ["a type of 41 letters", { type: "A".repeat(41) }],
    ["a lower-case type", { type: "order" }],
    ["a type with a digit after it", { type: "ORDER1" }],
    ["a type with something before it", { type: "1ORDER" }],
    ["a type with a space", { type: "ORDER SPLIT" }],
    ["an empty messageId", { messageId: "" }],
    ["a messageId of 201 characters", { messageId: "m".repeat(201) }],
    ["a fractional messageId", { messageId: 1.5 }],
    ["a boolean messageId", { messageId: true }],
    ["a messageType of 61 characters", { messageType: "U".repeat(61) }],
    ["a numeric messageType", { messageType: 5 }],
    ["numeric params", { params: 5 }],
    ["null params", { params: null }],
    ["an object openId", { openId: { id: 1 } }],
  ])("refuses %s as not a service event (400)", async (_name, change) => {
    const res = await send({ ...logistic("shape"), ...change });
    expect([res.status, await res.json()]).toEqual([
      400,
      { code: 400, result: "not a service event" },
    ]);
    await nothingStored();
  });

  it.each([
    ["a two-letter type (stored ignored)", { type: "AB" }, "AB"],
    [
      "a type of 40 letters and underscores (stored ignored)",
      { type: `${"A_".repeat(20)}` },
      "A_".repeat(20),
    ],
    ["a messageId of 200 characters", { messageId: "m".repeat(200) }, "LOGISTIC"],
    [
      "a messageType of 60 characters and no openId",
      { messageType: "U".repeat(60), openId: undefined },
      "LOGISTIC",
    ],
    ["params as a string", { params: '{"orderId":"SO-1"}' }, "LOGISTIC"],
    ["params as a list", { params: [{ orderId: "SO-1" }] }, "LOGISTIC"],
    ["a numeric openId", { openId: 42 }, "LOGISTIC"],
  ])("takes %s", async (_name, change, topic) => {
    const body = { ...logistic("edge"), ...change };
    const res = await send(body);
    expect(res.status).toBe(200);
    const event = await prisma.webhookEvent.findFirstOrThrow();
    expect(event.topic).toBe(topic);
    expect(event.eventKey.endsWith(`:${String(body.messageId)}`)).toBe(true);
    expect(event.payload).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it("each messageId is its own event", async () => {
    for (const id of ["e-1", "e-2", "e-3"]) expect((await send(logistic(id))).status).toBe(200);
    expect(
      (await prisma.webhookEvent.findMany({ orderBy: { id: "asc" } })).map((e) => e.eventKey),
    ).toEqual([
      expect.stringMatching(/:e-1$/),
      expect.stringMatching(/:e-2$/),
      expect.stringMatching(/:e-3$/),
    ]);
    expect(await prisma.job.count()).toBe(3);
  });

  it("a sign is exactly Base64 of the HMAC: extra padding, prefixes, suffixes and short forms are refused", async () => {
    const raw = JSON.stringify(logistic("sig"));
    const good = sign(raw);
    expect(good).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const forms = [`x${good}`, `${good}A`, `${good}=`, good.slice(1)];
    for (const form of forms) {
      expect(validSign(Buffer.from(raw), form, OPEN_ID)).toBe(false);
      expect((await send(raw, { sign: form })).status).toBe(401);
    }
    await nothingStored();
    expect(validSign(Buffer.from(raw), good, OPEN_ID)).toBe(true);
    expect(validSign(Buffer.from(`${raw} `), good, OPEN_ID)).toBe(false);
    expect(validSign(Buffer.from(raw), good, `${OPEN_ID}0`)).toBe(false);
    expect((await send(raw, { sign: good })).status).toBe(200);
  });

  it("a sign made of an URL-alphabet HMAC is refused even when it decodes to the right bytes", async () => {
    // Find a body whose HMAC has a + or / in Base64, so that the URL alphabet differs.
    let raw = "";
    let good = "";
    for (let i = 0; !/[+/]/.test(good); i++) {
      raw = JSON.stringify(logistic(`url-${i}`));
      good = sign(raw);
    }
    const urlSafe = good.replace(/\+/g, "-").replace(/\//g, "_");
    expect(Buffer.from(urlSafe, "base64")).toEqual(Buffer.from(good, "base64"));
    expect(validSign(Buffer.from(raw), urlSafe, OPEN_ID)).toBe(false);
    expect((await send(raw, { sign: urlSafe })).status).toBe(401);
    await nothingStored();
  });

  it("the secret's shape is checked before any lookup: 16 to 128 of [A-Za-z0-9_-]", async () => {
    const odd = {
      short: "abcdefghijklmno", // 15
      min: "abcdefghijklmnop", // 16
      max: "M".repeat(128),
      long: "L".repeat(129),
      dotFirst: `.${"a".repeat(20)}`,
      dotLast: `${"b".repeat(20)}.`,
    };
    const created = [];
    for (const [name, secret] of Object.entries(odd)) {
      created.push(
        await prisma.svcAccount.create({
          data: {
            shopDomain: `shape-${name.toLowerCase()}.myshopify.com`,
            baseUrl: "http://svc.test",
            authMethod: "apiKey",
            ...webhookSecretColumns(secret),
          },
        }),
      );
    }
    try {
      const statuses: Record<string, number> = {};
      for (const [name, secret] of Object.entries(odd)) {
        statuses[name] = (await send(logistic(`shape-${name}`), { secret })).status;
      }
      expect(statuses).toEqual({
        short: 404,
        min: 200,
        max: 200,
        long: 404,
        dotFirst: 404,
        dotLast: 404,
      });
      expect(
        (
          await prisma.webhookEvent.findMany({
            select: { shopDomain: true },
            orderBy: { id: "asc" },
          })
        ).map((e) => e.shopDomain),
      ).toEqual(["shape-min.myshopify.com", "shape-max.myshopify.com"]);
    } finally {
      await prisma.svcAccount.deleteMany({ where: { id: { in: created.map((c) => c.id) } } });
    }
  });

  it("an ignored event is logged at info once, with its reason; its redelivery only at debug", async () => {
    const info = vi.spyOn(logger, "info");
    const debug = vi.spyOn(logger, "debug");
    try {
      const body = { ...logistic("log-1"), type: "DISPUTE_NOTICE" };
      await send(body);
      expect(info.mock.calls.map(([fields]) => fields)).toEqual([
        expect.objectContaining({
          type: "DISPUTE_NOTICE",
          reason: "unknown event type DISPUTE_NOTICE",
        }),
      ]);
      expect(debug).not.toHaveBeenCalled();
      await send(body);
      await send(logistic("log-2"));
      await send(logistic("log-2"));
      expect(info).toHaveBeenCalledTimes(1);
      expect(debug.mock.calls.map(([fields]) => fields)).toEqual([
        { messageId: "log-1" },
        { messageId: "log-2" },
      ]);
      // An order's creation or payment update is ordinary traffic: stored ignored, not logged.
      const paid = {
        ...logistic("ord-1"),
        type: "ORDER",
        params: { orderId: "SO-1", orderStatus: "PAID" },
      };
      await send(paid);
      expect(info).toHaveBeenCalledTimes(1);
      expect(
        await prisma.webhookEvent.findFirst({
          where: { eventKey: { endsWith: ":ord-1" } },
          select: { ignoredReason: true, jobId: true },
        }),
      ).toEqual({ ignoredReason: "no tracking in the event", jobId: null });
    } finally {
      info.mockRestore();
      debug.mockRestore();
    }
  });
});
