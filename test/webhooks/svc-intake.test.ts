import { createHmac, randomBytes } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { handlers } from "../../app/jobs/handlers.server";
import { webhookSecretColumns } from "../../app/svc/webhook-secret.server";
import { KNOWN_SVC_TYPES } from "../../app/webhooks/svc-route.server";
import { action as ordersCreate } from "../../app/routes/webhooks.orders.create";
import { action as svcWebhook } from "../../app/routes/webhooks.svc.$secret";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../../app/webhooks/svc.server";
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
    expect(svcKinds.sort()).toEqual(KNOWN_SVC_TYPES.map((t) => `svc:${t}`).sort());
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
