import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { inspect } from "node:util";
import pino from "pino";
import * as E from "../../app/svc/errors";
import { svcClient } from "../../app/svc/client.server";
import { closeSvcPools, type Limiter, type TransportOptions } from "../../app/svc/transport.server";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler = (_q, _b, res) => res.end("{}");
const seen: Array<{ path: string; headers: IncomingMessage["headers"]; body: string }> = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    seen.push({ path: req.url ?? "", headers: req.headers, body });
    handler(req, body, res);
  });
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeSvcPools();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
});

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
};
const env = (code: number, data: unknown = null, message = "msg", extra: object = {}) => ({
  code,
  result: code === 200,
  message,
  data,
  requestId: "req-123",
  ...extra,
});
/** Answers a scripted sequence, then repeats the last. */
function script(...steps: Array<(res: ServerResponse) => void>): Handler {
  let i = 0;
  return (_q, _b, res) => steps[Math.min(i++, steps.length - 1)]!(res);
}

const TOKEN = "tok-SECRET-0123456789";
function makeClient(over: Partial<TransportOptions> = {}) {
  let token = TOKEN;
  const rejected: string[] = [];
  const client = svcClient({
    baseUrl: base,
    timeoutMs: 500,
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
    tokens: {
      getToken: async () => token,
      onTokenRejected: async (t) => {
        rejected.push(t);
        token = "tok-NEW-9876543210";
      },
    },
    ...over,
  });
  return { client, rejected };
}

const order = {
  orderNumber: "A-1",
  shippingCountryCode: "US",
  shippingCountry: "United States",
  shippingProvince: "CA",
  shippingCity: "LA",
  shippingCustomerName: "Jo",
  shippingAddress: "1 Main St",
  logisticName: "PostNL",
  fromCountryCode: "CN",
  products: [{ vid: "v1", quantity: 1 }],
};

describe("transport: envelope and error mapping", () => {
  const table: Array<[number, new (...a: never[]) => E.SvcError]> = [
    [1600000, E.SvcBusyError],
    [1600001, E.SvcAuthError],
    [1600003, E.SvcAuthError],
    [1600100, E.SvcParamError],
    [1600200, E.SvcRateLimitError],
    [1600201, E.SvcQuotaError],
    [1600300, E.SvcParamError],
    [1601000, E.SvcAuthError],
    [1602002, E.SvcProductRemovedError],
    [1602003, E.SvcProductRemovedError],
    [1603001, E.SvcCartError],
    [1603003, E.SvcDuplicateOrderError],
    [1603101, E.SvcPaymentError],
    [1604000, E.SvcInsufficientBalanceError],
    [1604001, E.SvcPaymentRestrictedError],
    [1605001, E.SvcLogisticsError],
    [1606000, E.SvcWebhookExistsError],
    [1607001, E.SvcWebhookAddressError],
    [1608001, E.SvcNotFoundError],
    [1005, E.SvcNotFoundError],
    [803, E.SvcNotFoundError],
    [8002, E.SvcOrderStateError],
    [811, E.SvcForbiddenError],
    [818, E.SvcForbiddenError],
    [819, E.SvcOrderStateError],
    [820, E.SvcOrderStateError],
    [821, E.SvcTransientError],
    [9063, E.SvcDisputeStateError],
    [4242, E.SvcError],
  ];

  it.each(table)(
    "maps code %i to its class with code, message, requestId, operation",
    async (code, Cls) => {
      handler = (_q, _b, res) =>
        json(res, code === 1600300 ? 400 : 200, env(code, null, `failure ${code}`));
      const { client } = makeClient({ retry: { maxAttempts: 1 } });
      const e = await client.payment.payBalance("o1").catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Cls);
      expect(e).toBeInstanceOf(E.SvcError);
      const err = e as E.SvcError;
      expect(err.code).toBe(code);
      expect(err.requestId).toBe("req-123");
      expect(err.operation).toBe("payBalance");
      expect(err.message).toContain(`failure ${code}`);
    },
  );

  it("sends the token header, JSON body and the path under /api2.0/v1", async () => {
    handler = (_q, _b, res) => json(res, 200, env(200, { amount: "10.5" }));
    const { client } = makeClient();
    const b = await client.payment.getBalance();
    expect(b).toEqual({ amount: "10.50", noWithdrawalAmount: null, freezeAmount: null });
    expect(seen[0]!.path).toBe("/api2.0/v1/shopping/pay/getBalance");
    expect(seen[0]!.headers["svc-access-token"]).toBe(TOKEN);
  });

  it("accepts code 0 for videos, `success` without `result`, and money/timestamps in either form", async () => {
    handler = (_q, _b, res) =>
      res.end(JSON.stringify({ code: 0, success: true, data: [{ id: "v1", duration: "1.5" }] }));
    const { client } = makeClient();
    expect((await client.catalog.videos("p1"))[0]).toMatchObject({ id: "v1", duration: 1.5 });
    // Code 0 is not success for other operations.
    await expect(client.catalog.globalWarehouses()).rejects.toBeInstanceOf(E.SvcError);
    handler = (_q, _b, res) =>
      res.end(
        JSON.stringify({
          code: 200,
          success: true,
          data: [{ areaId: 3, countryCode: "US", extra: 1 }],
        }),
      );
    expect(await client.catalog.globalWarehouses()).toEqual([
      expect.objectContaining({ areaId: 3, countryCode: "US", extra: 1 }),
    ]);
    handler = (_q, _b, res) =>
      res.end(
        `{"code":200,"data":{"pageNum":1,"pageSize":10,"total":2,"list":[` +
          `{"id":1,"money":12.10,"createDate":"1700000000000","updateDate":1700000000001},` +
          `{"id":"2","money":"3","createDate":1700000000002,"updateDate":null}]}}`,
      );
    const page = await client.disputes.list();
    expect(page.total).toBe(2);
    expect(page.items.map((d) => [d.id, d.money, d.createDate?.getTime()])).toEqual([
      ["1", "12.10", 1700000000000],
      ["2", "3.00", 1700000000002],
    ]);
    handler = (_q, _b, res) =>
      res.end(
        `{"code":200,"data":{"pageNumber":2,"pageSize":1,"totalRecords":5,"totalPages":5,"content":[{"productId":"p"}]}}`,
      );
    expect(await client.inventory.querySpuPage()).toMatchObject({
      pageNumber: 2,
      total: 5,
      totalPages: 5,
      items: [{ productId: "p" }],
    });
  });

  it("reports an unexpected shape without echoing values", async () => {
    handler = (_q, _b, res) => json(res, 200, env(200, { amount: "not-money-SECRETISH" }));
    const { client } = makeClient();
    const e = (await client.payment.getBalance().catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcResponseError);
    expect(e.message).toContain("amount");
    expect(e.message).not.toContain("SECRETISH");
  });
});

describe("transport: retries only where safe", () => {
  it("retries a query through 5xx, 1600000 and 1600200, slowing the limiter down", async () => {
    handler = script(
      (res) => json(res, 503, { error: "unavailable" }),
      (res) => json(res, 200, env(1600000)),
      (res) => json(res, 200, env(1600200)),
      (res) => json(res, 200, env(200, [])),
    );
    const limited: string[] = [];
    const acquired: string[] = [];
    const limiter: Limiter = {
      acquire: async (b) => void acquired.push(b),
      onRateLimited: async (b) => void limited.push(b),
    };
    const { client } = makeClient({ limiter });
    expect(await client.orders.getOrderDetailBatch(["o1"])).toEqual([]);
    expect(seen).toHaveLength(4);
    expect(acquired).toEqual(["query", "query", "query", "query"]);
    expect(limited).toEqual(["query"]);
  });

  it("gives up after maxAttempts with the last error", async () => {
    handler = (_q, _b, res) => json(res, 502, {});
    const { client } = makeClient();
    const e = (await client.catalog.categories().catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcServerError);
    expect(e.httpStatus).toBe(502);
    expect(seen).toHaveLength(4);
  });

  it("never retries order creation, payment or a dispute reply after an unknown outcome", async () => {
    handler = (_q, _b, res) => json(res, 503, {});
    const { client } = makeClient();
    const e1 = (await client.orders.createOrderV3(order).catch((x: unknown) => x)) as E.SvcError;
    expect(e1).toBeInstanceOf(E.SvcServerError);
    expect(e1.outcomeUnknown).toBe(true);
    handler = (_q, _b, res) => json(res, 200, env(1600000));
    const e2 = (await client.payment.payBalanceV2("s1").catch((x: unknown) => x)) as E.SvcError;
    expect(e2).toBeInstanceOf(E.SvcBusyError);
    expect(e2.outcomeUnknown).toBe(true);
    const e3 = (await client.disputes
      .reply({ disputeId: "d", messageText: "hi" })
      .catch((x: unknown) => x)) as E.SvcError;
    expect(e3).toBeInstanceOf(E.SvcBusyError);
    expect(seen).toHaveLength(3);
  });

  it("retries a create or a payment that the service refused as too many requests (1600200)", async () => {
    handler = script(
      (res) => json(res, 200, env(1600200)),
      (res) => json(res, 200, env(200, { orderId: "SVC-1", orderNumber: order.orderNumber })),
      (res) => json(res, 200, env(1600200)),
      (res) => json(res, 200, env(1600200)),
      (res) => json(res, 200, env(200, true)),
    );
    const limited: string[] = [];
    const limiter: Limiter = {
      acquire: async () => undefined,
      onRateLimited: async (_b, operation) => void limited.push(operation),
    };
    const { client } = makeClient({ limiter });
    const created = await client.orders.createOrderV3(order);
    expect(created.orderId).toBe("SVC-1");
    await client.payment.payBalanceV2("s1", "p1");
    expect(seen).toHaveLength(5);
    expect(limited).toEqual(["createOrderV3", "payBalanceV2", "payBalanceV2"]);
    // A refusal on the last attempt is still an error (no endless loop).
    handler = (_q, _b, res) => json(res, 200, env(1600200));
    seen.length = 0;
    const e = (await client.orders.createOrderV3(order).catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcRateLimitError);
    expect(e.outcomeUnknown).toBeFalsy();
    expect(seen).toHaveLength(4);
  });

  it("times out (outcome unknown), retrying a query but not a create", async () => {
    handler = (_q, _b, res) => setTimeout(() => json(res, 200, env(200, [])), 800);
    const { client } = makeClient({ timeoutMs: 150, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const e = (await client.orders.createOrderV3(order).catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcTimeoutError);
    expect(e.outcomeUnknown).toBe(true);
    expect(seen).toHaveLength(1);
    seen.length = 0;
    await expect(client.orders.getProofOfDelivery(["o1"])).rejects.toBeInstanceOf(
      E.SvcTimeoutError,
    );
    expect(seen).toHaveLength(2);
  });

  it("waits longer for addCartConfirm, whose lost reply no query can replace", async () => {
    const confirmed = { successCount: 1, submitSuccess: true, shipmentsId: "SH1", result: 1 };
    handler = (_q, _b, res) => setTimeout(() => json(res, 200, env(200, confirmed)), 400);
    const { client } = makeClient({ timeoutMs: 150, retry: { maxAttempts: 1, baseDelayMs: 1 } });
    await expect(client.orders.addCart(["o1"])).rejects.toBeInstanceOf(E.SvcTimeoutError);
    const r = await client.orders.addCartConfirm(["o1"]);
    expect(r.shipmentsId).toBe("SH1");
  });

  it("knows a refused connection never reached the server", async () => {
    const c = svcClient({
      baseUrl: "http://127.0.0.1:1",
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      tokens: { getToken: async () => "t", onTokenRejected: async () => {} },
    });
    const e = (await c.orders.createOrderV3(order).catch((x: unknown) => x)) as E.SvcError;
    expect(e).toBeInstanceOf(E.SvcNetworkError);
    expect(e.outcomeUnknown).toBe(false);
    expect(
      c.transport.mayRetry(
        { name: "x", method: "POST", path: "/", auth: "token", bucket: "default", retry: "never" },
        e,
      ),
    ).toBe(true);
  });

  it("hands a rejected token back and retries once with a new one", async () => {
    handler = script(
      (res) => json(res, 200, env(1600001)),
      (res) => json(res, 200, env(200, { amount: 1 })),
    );
    const { client, rejected } = makeClient();
    await client.payment.getBalance();
    expect(rejected).toEqual([TOKEN]);
    expect(seen.map((s) => s.headers["svc-access-token"])).toEqual([TOKEN, "tok-NEW-9876543210"]);
  });

  it("caps the jittered backoff", () => {
    const { client } = makeClient({
      retry: { baseDelayMs: 100, maxDelayMs: 1000 },
      random: () => 1,
    });
    expect(client.transport.backoff(1)).toBe(100);
    expect(client.transport.backoff(3)).toBe(400);
    expect(client.transport.backoff(30)).toBe(1000);
    const low = makeClient({
      retry: { baseDelayMs: 100, maxDelayMs: 1000 },
      random: () => 0,
    }).client;
    expect(low.transport.backoff(30)).toBe(250);
  });

  it("sends platformToken on order creation only, when configured", async () => {
    handler = (_q, _b, res) => json(res, 200, env(200, { orderId: "o1", orderNumber: "A-1" }));
    const { client } = makeClient({ platformToken: "plat-TOKEN-abcdef" });
    await client.orders.createOrderV3(order);
    expect(seen[0]!.headers["platformtoken"]).toBe("plat-TOKEN-abcdef");
    handler = (_q, _b, res) => json(res, 200, env(200, { amount: "1" }));
    await client.payment.getBalance();
    expect(seen[1]!.headers["platformtoken"]).toBeUndefined();
  });
});

describe("transport: secrets", () => {
  it("never puts a token, key or code in an error or a log line", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = pino({ level: "trace" }, sink);
    const API_KEY = "apikey-SECRET-ABCDEFGH";
    const CODE = "authcode-SECRET-XYZ";
    const PLATFORM = "platform-SECRET-QWERTY";
    // The server echoes every secret it saw in its error message.
    handler = (req, body, res) =>
      json(
        res,
        200,
        env(
          1600100,
          null,
          `bad ${req.headers["svc-access-token"]} ${req.headers["platformtoken"]} ${body}`,
        ),
      );
    const { client } = makeClient({
      logger,
      platformToken: PLATFORM,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const errors: unknown[] = [];
    errors.push(await client.auth.getAccessToken(API_KEY).catch((x: unknown) => x));
    errors.push(await client.auth.exchangeAccessToken(CODE).catch((x: unknown) => x));
    errors.push(await client.orders.createOrderV3(order).catch((x: unknown) => x));
    errors.push(
      await client.auth.refreshAccessToken("refresh-SECRET-1234").catch((x: unknown) => x),
    );
    handler = (_q, _b, res) => json(res, 503, {});
    errors.push(await client.catalog.categories().catch((x: unknown) => x));
    expect(errors.every((e) => e instanceof E.SvcError)).toBe(true);
    expect(lines.length).toBeGreaterThan(3);
    const everything = [
      ...lines,
      ...errors.map(
        (e) =>
          `${(e as Error).message} ${(e as Error).stack} ${JSON.stringify(e)} ${inspect(e, { depth: 5 })}`,
      ),
    ].join("\n");
    expect(everything).toContain("[redacted]");
    for (const s of [TOKEN, API_KEY, CODE, PLATFORM, "refresh-SECRET-1234"])
      expect(everything).not.toContain(s);
  });
});
