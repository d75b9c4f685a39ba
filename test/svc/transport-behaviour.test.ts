/**
 * The transport's behaviour over real HTTP against a scripted server: back-off as durations,
 * which failures are retried (never a write after an unknown outcome), time-outs, malformed
 * envelopes and HTTP statuses, a rejected token handed back once, secrets, logs and metrics.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Pool, type Dispatcher } from "undici";
import { z } from "zod";
import { svcCallDuration, svcCalls } from "../../app/metrics/registry.server";
import * as E from "../../app/svc/errors";
import {
  closeSvcPools,
  encodeQuery,
  readEnvelope,
  Transport,
  type Bucket,
  type OperationDef,
  type TokenProvider,
  type TransportOptions,
} from "../../app/svc/transport.server";
import { listenOnLoopback } from "../helpers/loopback";
import { captureLogger } from "./sim-helpers";

interface Arrival {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  port: number;
  at: number;
}
type Reply = (res: ServerResponse, req: Arrival) => void;

const arrivals: Arrival[] = [];

// A loaded machine (mutation runs beside other suites) can stretch a test of many calls.
vi.setConfig({ testTimeout: 90_000 });
let replies: Reply[] = [];
let openSockets = 0;
let maxOpenSockets = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const a: Arrival = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      port: req.socket.remotePort ?? 0,
      at: Date.now(),
    };
    arrivals.push(a);
    const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
    reply(res, a);
  });
});
server.on("connection", (s: Socket) => {
  openSockets++;
  maxOpenSockets = Math.max(maxOpenSockets, openSockets);
  s.on("close", () => {
    openSockets--;
  });
});
let base = "";
let local: Awaited<ReturnType<typeof listenOnLoopback>>;

beforeAll(async () => {
  local = await listenOnLoopback(server);
  base = local.url;
});
afterAll(async () => {
  await closeSvcPools();
  await local.close();
});
beforeEach(() => {
  arrivals.length = 0;
  replies = [send(200, envelope(200, { ok: true }))];
});

/** Replies in order; the last one repeats. */
function answer(...r: Reply[]) {
  replies = r;
}
function send(status: number, body: unknown, contentType = "application/json"): Reply {
  return (res) => {
    res.statusCode = status;
    res.setHeader("content-type", contentType);
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
}
const envelope = (code: number, data: unknown = null, message: string | undefined = "m") => ({
  code,
  message,
  data,
  requestId: `rq-${code}`,
});
const svc = (code: number, data?: unknown) => send(200, envelope(code, data));
const html503 = send(503, "<html>unavailable</html>", "text/html");
/** Closes the connection after reading the request: the service may have acted. */
const hangUp: Reply = (res) => res.socket?.destroy();

let opSeq = 0;
/** An operation with a name of its own (metrics are per operation name). */
function op(kind: "query" | "write" | "none", over: Partial<OperationDef> = {}): OperationDef {
  opSeq++;
  return {
    name: `t${opSeq}-${kind}`,
    method: kind === "query" ? "GET" : "POST",
    path: `/t/${kind}`,
    auth: kind === "none" ? "none" : "token",
    bucket: kind === "query" ? "query" : "default",
    retry: kind === "write" ? "never" : "safe",
    ...over,
  };
}

const TOKEN_A = "tok-AAAA-111111";
const TOKEN_B = "tok-BBBB-222222";

/** A token provider that hands out A until A is rejected, then B; it records what it saw. */
function tokenProvider(secrets: string[] = []) {
  const seen = { gets: 0, rejected: [] as string[] };
  let current = TOKEN_A;
  const tokens: TokenProvider = {
    getToken: async () => {
      seen.gets++;
      return current;
    },
    onTokenRejected: async (t) => {
      seen.rejected.push(t);
      current = TOKEN_B;
    },
    secrets: () => secrets,
  };
  return { tokens, seen };
}

function limiterLog() {
  const acquired: string[] = [];
  const limited: string[] = [];
  return {
    acquired,
    limited,
    limiter: {
      acquire: async (b: Bucket, o: string) => void acquired.push(`${b}:${o}`),
      onRateLimited: async (b: Bucket, o: string) => void limited.push(`${b}:${o}`),
    },
  };
}

/** A transport with recorded (not waited) back-off delays. */
function transport(over: Partial<TransportOptions> = {}) {
  const delays: number[] = [];
  const { tokens, seen } = tokenProvider();
  const t = new Transport({
    baseUrl: base,
    tokens,
    timeoutMs: 10_000,
    retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 },
    sleep: async (ms) => void delays.push(ms),
    random: () => 1,
    ...over,
  });
  return { t, delays, seen };
}

async function failure(p: Promise<unknown>): Promise<E.SvcError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof E.SvcError)) throw new Error(`expected an SvcError, got ${String(e)}`);
  return e;
}

async function counted(name: string) {
  const { values } = await svcCalls.get();
  const out: Record<string, number> = {};
  for (const v of values) if (v.labels.operation === name) out[String(v.labels.result)] = v.value;
  return out;
}

describe("back-off between retries, as durations", () => {
  it("grows from the base, doubling, up to the cap; full jitter between a quarter and the whole step", async () => {
    answer(html503);
    const retry = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1_000 };
    const high = transport({ retry, random: () => 1 });
    await failure(high.t.request(op("query"), {}));
    expect(high.delays).toEqual([100, 200, 400, 800, 1_000]);
    expect(arrivals).toHaveLength(6);

    const low = transport({ retry, random: () => 0 });
    await failure(low.t.request(op("query"), {}));
    expect(low.delays).toEqual([25, 50, 100, 200, 250]);

    const mid = transport({ retry, random: () => 0.5 });
    await failure(mid.t.request(op("query"), {}));
    expect(mid.delays).toEqual([63, 125, 250, 500, 625]);
  });

  it("defaults: four attempts, 200 ms base, 5 s cap, Math.random jitter", async () => {
    answer(html503);
    const d = transport({ retry: undefined });
    await failure(d.t.request(op("query"), {}));
    expect(d.delays).toEqual([200, 400, 800]);
    expect(arrivals).toHaveLength(4);

    const capped = transport({ retry: { maxAttempts: 8 } });
    await failure(capped.t.request(op("query"), {}));
    expect(capped.delays).toEqual([200, 400, 800, 1_600, 3_200, 5_000, 5_000]);

    const jittered = transport({ retry: { maxAttempts: 8 }, random: undefined });
    await failure(jittered.t.request(op("query"), {}));
    const steps = [200, 400, 800, 1_600, 3_200, 5_000, 5_000];
    expect(jittered.delays).toHaveLength(7);
    jittered.delays.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(steps[i]! / 4);
      expect(ms).toBeLessThanOrEqual(steps[i]!);
    });
  });

  it("really waits the delay before the next attempt when no sleep is injected", async () => {
    answer(html503, svc(200, 1));
    const { t } = transport({ sleep: undefined, retry: { maxAttempts: 2, baseDelayMs: 300 } });
    await t.request(op("query"), {});
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(290);
  });

  it("logs each retry with the delay it waits, and the final failure", async () => {
    answer(html503);
    const cap = captureLogger();
    const o = op("query");
    const { t, delays } = transport({ logger: cap.logger, retry: { maxAttempts: 3 } });
    await failure(t.request(o, {}));
    const lines = cap.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const retries = lines.filter((l) => l.retryInMs !== undefined);
    expect(retries.map((l) => l.retryInMs)).toEqual(delays);
    expect(retries.map((l) => l.attempt)).toEqual([1, 2]);
    const last = lines.at(-1)!;
    expect(last).toMatchObject({
      svcOp: o.name,
      attempt: 3,
      httpStatus: 503,
      error: "SvcServerError",
      outcomeUnknown: true,
    });
    expect(last.retryInMs).toBeUndefined();
    for (const l of lines) expect(l.ms as number).toBeLessThan(600_000);
    expect(lines.every((l) => l.level === 40)).toBe(true);
  });
});

describe("which failures are retried", () => {
  it("a query is retried through 5xx, busy, rate limits, transient 821 and a dropped connection", async () => {
    const { limiter, acquired, limited } = limiterLog();
    const o = op("query");
    answer(html503, svc(1600000), svc(1600200), svc(821), hangUp, svc(200, { n: 1 }));
    const { t, delays } = transport({ limiter, retry: { maxAttempts: 6 } });
    const env = await t.request(o, {});
    expect(env.data).toEqual({ n: 1 });
    expect(delays).toHaveLength(5);
    expect(acquired).toEqual(Array(6).fill(`query:${o.name}`));
    expect(limited).toEqual([`query:${o.name}`]);
    expect(await counted(o.name)).toEqual({
      http_5xx: 1,
      "1600000": 1,
      "1600200": 1,
      "821": 1,
      network: 1,
      "200": 1,
    });
  });

  it.each([
    ["parameter error 1600100", svc(1600100), E.SvcParamError],
    ["insufficient balance 1604000", svc(1604000), E.SvcInsufficientBalanceError],
    ["HTTP 404 without an envelope", send(404, "not found", "text/plain"), E.SvcResponseError],
    ["a 200 that is not JSON", send(200, "<html>ok</html>", "text/html"), E.SvcResponseError],
  ])("a query is not retried after %s", async (_name, reply, Cls) => {
    answer(reply, svc(200));
    const { t, delays } = transport();
    const e = await failure(t.request(op("query"), {}));
    expect(e).toBeInstanceOf(Cls);
    expect(arrivals).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it.each([
    ["HTTP 503", html503, E.SvcServerError],
    ["busy 1600000", svc(1600000), E.SvcBusyError],
    ["a connection closed after the request", hangUp, E.SvcNetworkError],
  ])("a write is never repeated after %s: the outcome is unknown", async (_name, reply, Cls) => {
    answer(reply, svc(200));
    const { t, delays } = transport();
    const e = await failure(t.request(op("write"), { body: { orderNumber: "A-1" } }));
    expect(e).toBeInstanceOf(Cls);
    expect(e.outcomeUnknown).toBe(true);
    expect(arrivals).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("a busy reply to a query does not make its outcome unknown; to a write it does", async () => {
    answer(svc(1600000));
    const q = await failure(transport({ retry: { maxAttempts: 1 } }).t.request(op("query"), {}));
    expect(q).toBeInstanceOf(E.SvcBusyError);
    expect(q.outcomeUnknown).toBe(false);
    const w = await failure(transport().t.request(op("write"), {}));
    expect(w.outcomeUnknown).toBe(true);
    answer(svc(1604000));
    const refused = await failure(transport().t.request(op("write"), {}));
    expect(refused.outcomeUnknown).toBe(false);
  });

  it("a write refused as too many requests (1600200) never ran: it is retried after the back-off", async () => {
    const { limiter, limited } = limiterLog();
    const o = op("write");
    answer(svc(1600200), svc(1600200), svc(200, { id: "X" }));
    const { t, delays } = transport({ limiter });
    expect((await t.request(o, { body: {} })).data).toEqual({ id: "X" });
    expect(arrivals).toHaveLength(3);
    expect(delays).toEqual([100, 200]);
    expect(limited).toEqual([`default:${o.name}`, `default:${o.name}`]);
  });

  it("a rate-limit refusal is retried without a limiter too", async () => {
    answer(svc(1600200), svc(200, 7));
    const { t } = transport({ limiter: undefined });
    expect((await t.request(op("query"), {})).data).toBe(7);
    expect(arrivals).toHaveLength(2);
  });

  it("a write whose connection was refused never left: it is retried", async () => {
    const { t, delays } = transport({ baseUrl: "http://127.0.0.1:1", retry: { maxAttempts: 3 } });
    const o = op("write");
    const e = await failure(t.request(o, { body: {} }));
    expect(e).toBeInstanceOf(E.SvcNetworkError);
    expect(e.outcomeUnknown).toBe(false);
    expect(delays).toEqual([200, 400]);
    expect(await counted(o.name)).toEqual({ network: 3 });
  });

  it("an error that is not the service's (a failing platformToken source) is thrown as is, once", async () => {
    const boom = new Error("vault unavailable");
    let asked = 0;
    const o = op("write", { platformToken: true });
    const { t, delays } = transport({
      platformToken: () => {
        asked++;
        throw boom;
      },
    });
    await expect(t.request(o, {})).rejects.toBe(boom);
    expect(asked).toBe(1);
    expect(delays).toEqual([]);
    expect(arrivals).toHaveLength(0);
    expect(await counted(o.name)).toEqual({ error: 1 });
  });
});

/** Undici errors as a dispatcher reports them. */
function failingDispatcher(error: Error & { code?: string }, seen: unknown[] = []): Dispatcher {
  return {
    request: async (opts: unknown) => {
      seen.push(opts);
      throw error;
    },
  } as unknown as Dispatcher;
}
const undiciError = (code: string, message = code, name = "Error") =>
  Object.assign(new Error(message), { code, name });

describe("network failures and time-outs", () => {
  it("a time-out aborts the request and is an unknown outcome: a query is retried, a write is not", async () => {
    const closed: boolean[] = [];
    answer((res) => res.on("close", () => closed.push(res.writableEnded)));
    const { t, delays } = transport({ timeoutMs: 150, retry: { maxAttempts: 2 } });
    const w = await failure(t.request(op("write"), { body: {} }));
    expect(w).toBeInstanceOf(E.SvcTimeoutError);
    expect(w.outcomeUnknown).toBe(true);
    expect(arrivals).toHaveLength(1);
    expect(delays).toEqual([]);
    const q = await failure(t.request(op("query"), {}));
    expect(q).toBeInstanceOf(E.SvcTimeoutError);
    expect(arrivals).toHaveLength(3);
    // The server saw every request given up (its connection closed without an answer).
    await expect.poll(() => closed, { timeout: 10_000 }).toEqual([false, false, false]);
  });

  it("a reply that stalls in the body times out too", async () => {
    answer((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"code":200,');
    });
    const { t } = transport({ timeoutMs: 150, retry: { maxAttempts: 1 } });
    const e = await failure(t.request(op("query"), {}));
    expect(e).toBeInstanceOf(E.SvcTimeoutError);
    expect(e.outcomeUnknown).toBe(true);
  });

  it("an operation's minimum time-out outlasts a shorter client time-out", async () => {
    answer((res, a) => setTimeout(() => svc(200, a.url)(res, a), 300));
    const { t } = transport({ timeoutMs: 100, retry: { maxAttempts: 1 } });
    const env = await t.request(op("write", { minTimeoutMs: 10_000 }), {});
    expect(env.data).toBe("/api2.0/v1/t/write");
  });

  it("gives the HTTP layer the time-out (30 s by default, or the operation's longer one)", async () => {
    const seen: Array<{ headersTimeout?: number | null; bodyTimeout?: number | null }> = [];
    const pool = new Pool(base);
    const recording = {
      request: (opts: Dispatcher.RequestOptions) => {
        seen.push(opts);
        return pool.request(opts);
      },
    } as unknown as Dispatcher;
    const t = new Transport({
      baseUrl: base,
      dispatcher: recording,
      tokens: tokenProvider().tokens,
    });
    await t.request(op("query"), {});
    await t.request(op("write", { minTimeoutMs: 45_000 }), {});
    await t.with({ timeoutMs: 1_234 }).request(op("query"), {});
    expect(seen.map((s) => [s.headersTimeout, s.bodyTimeout])).toEqual([
      [30_000, 30_000],
      [45_000, 45_000],
      [1_234, 1_234],
    ]);
    await pool.close();
  });

  it.each([
    ["UND_ERR_HEADERS_TIMEOUT", "Error", E.SvcTimeoutError, true],
    ["UND_ERR_BODY_TIMEOUT", "Error", E.SvcTimeoutError, true],
    ["ABORT_ERR", "TimeoutError", E.SvcTimeoutError, true],
    ["UND_ERR_CONNECT_TIMEOUT", "Error", E.SvcTimeoutError, false],
    ["ECONNREFUSED", "Error", E.SvcNetworkError, false],
    ["ENOTFOUND", "Error", E.SvcNetworkError, false],
    ["EAI_AGAIN", "Error", E.SvcNetworkError, false],
    ["EHOSTUNREACH", "Error", E.SvcNetworkError, false],
    ["ENETUNREACH", "Error", E.SvcNetworkError, false],
    ["ECONNRESET", "Error", E.SvcNetworkError, true],
    ["UND_ERR_SOCKET", "Error", E.SvcNetworkError, true],
  ] as const)(
    "%s (%s) is %o, outcome unknown %s; a write is retried only when it never left",
    async (code, name, Cls, unknown) => {
      const seen: unknown[] = [];
      const { t, delays } = transport({
        dispatcher: failingDispatcher(undiciError(code, `failed with ${TOKEN_A}`, name), seen),
        retry: { maxAttempts: 2 },
      });
      const o = op("write");
      const e = await failure(t.request(o, { body: {} }));
      expect(e.constructor).toBe(Cls);
      expect(e.operation).toBe(o.name);
      expect(e.outcomeUnknown).toBe(unknown);
      expect(seen).toHaveLength(unknown ? 1 : 2);
      expect(delays).toEqual(unknown ? [] : [200]);
      // The cause's text stays out of the message when it carried the token.
      expect(e.message).not.toContain(TOKEN_A);
    },
  );

  it("a network error says what failed, briefly: the cause's code (or name) and message", async () => {
    const cases: Array<[object, string]> = [
      [
        { code: "ECONNRESET", name: "Error", message: "socket hang up" },
        "(ECONNRESET: socket hang up)",
      ],
      [{ name: "SocketError", message: "other side closed" }, "(SocketError: other side closed)"],
      [{}, "(error: )"],
    ];
    for (const [cause, detail] of cases) {
      const { t } = transport({
        dispatcher: failingDispatcher(cause as Error),
        retry: { maxAttempts: 1 },
      });
      const e = await failure(t.request(op("query"), {}));
      expect(e.message).toContain(detail);
    }
    const { t } = transport({
      dispatcher: failingDispatcher(undiciError("ECONNRESET", "x".repeat(5_000))),
      retry: { maxAttempts: 1 },
    });
    const long = await failure(t.request(op("query"), {}));
    expect(long.message.length).toBeLessThan(300);
  });

  it("an error without code or message is still a network failure", async () => {
    const { t } = transport({
      dispatcher: failingDispatcher({} as Error),
      retry: { maxAttempts: 1 },
    });
    const e = await failure(t.request(op("query"), {}));
    expect(e.constructor).toBe(E.SvcNetworkError);
    expect(e.outcomeUnknown).toBe(true);
  });

  it("a caller's abort ends the call without retrying it", async () => {
    answer(() => undefined);
    const ac = new AbortController();
    const { t, delays } = transport();
    const p = t.request(op("query"), { signal: ac.signal });
    await expect.poll(() => arrivals.length, { timeout: 10_000 }).toBe(1);
    ac.abort();
    const e = await failure(p);
    expect(e).not.toBeInstanceOf(E.SvcTimeoutError);
    expect(arrivals).toHaveLength(1);
    expect(delays).toEqual([]);
  });
});

describe("envelopes and HTTP statuses", () => {
  it("accepts a numeric-text code and reads message and requestId tolerantly", async () => {
    answer(send(200, { code: "200", data: [1], requestId: 42 }));
    const env = await transport().t.request(op("query"), {});
    expect(env).toEqual({ code: 200, message: undefined, requestId: "42", data: [1] });
    expect(readEnvelope({ code: 1600100, message: 7, requestId: null })).toEqual({
      code: 1600100,
      message: "7",
      requestId: undefined,
      data: undefined,
    });
    expect(readEnvelope({ code: "1600100", message: null })?.message).toBeUndefined();
    for (const bad of [
      null,
      undefined,
      "x",
      5,
      [],
      [{ code: 200 }],
      {},
      { code: "2x" },
      { code: " 200" },
      { code: "200 " },
      { code: true },
      { code: ["200"] },
    ])
      expect(readEnvelope(bad)).toBeUndefined();
  });

  it.each([
    ["an empty 200", send(200, ""), E.SvcResponseError, 200],
    ["a JSON array", send(200, [{ code: 200 }]), E.SvcResponseError, 200],
    ["a code that is not a number", send(200, { code: "ok", data: 1 }), E.SvcResponseError, 200],
    ["HTTP 499 HTML", send(499, "<p>no</p>", "text/html"), E.SvcResponseError, 499],
    ["HTTP 500 HTML", send(500, "<p>no</p>", "text/html"), E.SvcServerError, 500],
    ["HTTP 500 with a success envelope", send(500, envelope(200, 1)), E.SvcServerError, 500],
    ["HTTP 400 with a success envelope", send(400, envelope(200, 1)), E.SvcError, 400],
    ["HTTP 400 with 1600300", send(400, envelope(1600300)), E.SvcParamError, 400],
  ])("%s is a %o carrying the HTTP status", async (_n, reply, Cls, status) => {
    answer(reply);
    const e = await failure(transport({ retry: { maxAttempts: 1 } }).t.request(op("query"), {}));
    expect(e.constructor).toBe(Cls);
    expect(e.httpStatus).toBe(status);
    expect(e.outcomeUnknown).toBe(status >= 500);
    expect(e.retryable).toBe(status >= 500);
  });

  it("a success envelope under a 3xx status is a success", async () => {
    answer(send(302, envelope(200, "moved but done")));
    expect((await transport().t.request(op("query"), {})).data).toBe("moved but done");
  });

  it("an operation's own success codes (0 for videos) and no other", async () => {
    answer(svc(0, ["v"]));
    const { t } = transport({ retry: { maxAttempts: 1 } });
    expect((await t.request(op("query", { successCodes: [0, 200] }), {})).data).toEqual(["v"]);
    expect((await failure(t.request(op("query"), {}))).code).toBe(0);
  });

  it("an error names the operation, code and requestId; the service's message is kept short", async () => {
    const long = `refused ${"x".repeat(1_000)}`;
    answer(send(200, envelope(1603001, null, long)));
    const o = op("write");
    const e = await failure(transport().t.request(o, {}));
    expect(e).toBeInstanceOf(E.SvcCartError);
    expect(e).toMatchObject({ code: 1603001, requestId: "rq-1603001", operation: o.name });
    expect(e.message).toContain("refused xxx");
    expect(e.message.length).toBeLessThanOrEqual(
      `${o.name}: `.length + 300 + " (code 1603001)".length,
    );
    answer(send(200, { code: 1603001 }));
    const bare = await failure(transport().t.request(o, {}));
    expect(bare).toBeInstanceOf(E.SvcCartError);
    expect(bare.requestId).toBeUndefined();
  });

  it("call() checks the data against the schema and names where it differs, not the values", async () => {
    answer(svc(200, { amount: "SECRET-VALUE", list: [{ id: 1 }] }));
    const { t } = transport();
    const o = op("query");
    const schema = z.object({ amount: z.number(), list: z.array(z.object({ id: z.string() })) });
    const e = await failure(t.call(o, {}, schema));
    expect(e).toBeInstanceOf(E.SvcResponseError);
    expect(e).toMatchObject({ code: 200, requestId: "rq-200", operation: o.name });
    expect(e.message).toContain("amount: invalid_type");
    expect(e.message).toContain("list.0.id: invalid_type");
    expect(e.message).not.toContain("SECRET-VALUE");
    answer(svc(200, "just text"));
    expect((await failure(t.call(o, {}, schema))).message).toContain("data: invalid_type");
    const wide = z.object(Object.fromEntries("abcdefg".split("").map((k) => [k, z.string()])));
    answer(svc(200, {}));
    const many = await failure(t.call(o, {}, wide));
    expect(many.message.match(/invalid_type/g)).toHaveLength(5);
    answer(svc(200, { amount: 1.5, list: [] }));
    expect(await t.call(o, {}, schema)).toEqual({ amount: 1.5, list: [] });
  });
});

describe("the request", () => {
  it("goes under the base URL's path to /api2.0/v1 with the query encoded; JSON only with a body", async () => {
    const { t } = transport({ baseUrl: `${base}/svc//` });
    await t.request(op("query"), {
      query: { ids: ["a", "b"], page: 2, skip: undefined, none: null, s: "x y" },
      body: { ignored: true },
    });
    await t.request(op("write"), { body: { n: 1 } });
    await t.request(op("write"), {});
    const [get, post, empty] = arrivals;
    expect(get!.url).toBe("/svc/api2.0/v1/t/query?ids=a&ids=b&page=2&s=x+y");
    expect(get!.method).toBe("GET");
    expect(get!.body).toBe("");
    expect(get!.headers["content-type"]).toBeUndefined();
    expect(get!.headers.accept).toBe("application/json");
    expect(post!.body).toBe('{"n":1}');
    expect(post!.headers["content-type"]).toBe("application/json");
    expect(empty!.body).toBe("");
    expect(empty!.headers["content-type"]).toBeUndefined();
    expect(encodeQuery(undefined)).toBe("");
    expect(encodeQuery({ a: undefined })).toBe("");
  });

  it("sends the provider's token per attempt, a given token as is, none for auth-free operations", async () => {
    const { t, seen } = transport();
    await t.request(op("query"), {});
    await t.request(op("query"), { token: "given-token" });
    await t.request(op("none"), {});
    expect(arrivals.map((a) => a.headers["svc-access-token"])).toEqual([
      TOKEN_A,
      "given-token",
      undefined,
    ]);
    expect(seen.gets).toBe(1);
    answer(html503, svc(200));
    await t.request(op("query"), {});
    expect(seen.gets).toBe(3);
  });

  it("refuses a token operation without a token provider, before sending anything", async () => {
    const t = new Transport({ baseUrl: base });
    const o = op("query");
    const e = await failure(t.request(o, {}));
    expect(e).toBeInstanceOf(E.SvcAuthError);
    expect(e.operation).toBe(o.name);
    expect(arrivals).toHaveLength(0);
    expect((await t.request(op("none"), {})).code).toBe(200);
  });

  it("sends platformToken (string or function) on operations that take it, when there is one", async () => {
    const creates = op("write", { platformToken: true });
    await transport({ platformToken: "plat-STRING-1" }).t.request(creates, {});
    await transport({ platformToken: async () => "plat-FN-2" }).t.request(creates, {});
    await transport({ platformToken: () => undefined }).t.request(creates, {});
    await transport({ platformToken: "plat-STRING-1" }).t.request(op("write"), {});
    expect(arrivals.map((a) => a.headers.platformtoken)).toEqual([
      "plat-STRING-1",
      "plat-FN-2",
      undefined,
      undefined,
    ]);
  });

  it("reuses kept-alive connections, at most 16 at once, and opens new ones after closeSvcPools", async () => {
    const { t } = transport();
    await closeSvcPools();
    for (let i = 0; i < 10; i++) await t.request(op("query"), {});
    const kept = new Set(arrivals.map((a) => a.port));
    expect(kept.size).toBeLessThan(10);
    await closeSvcPools();
    await t.request(op("query"), {});
    expect(kept.has(arrivals[10]!.port)).toBe(false);

    // Twenty calls at once: the replies wait until the server has seen sixteen plus a while.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const waiting: Array<() => void> = [];
    answer((res, a) => {
      waiting.push(() => svc(200, a.url)(res, a));
      if (waiting.length === 16) setTimeout(release, 500);
      void gate.then(() => waiting.splice(0).forEach((f) => f()));
    });
    await closeSvcPools();
    maxOpenSockets = openSockets;
    const all = await Promise.all(Array.from({ length: 20 }, () => t.request(op("query"), {})));
    expect(all).toHaveLength(20);
    expect(maxOpenSockets).toBeLessThanOrEqual(16);
  });
});

describe("a rejected token", () => {
  it("is handed back once and the call repeated once with the new token", async () => {
    answer(svc(1600001), svc(200, "ok"));
    const { t, seen } = transport();
    expect((await t.request(op("write"), {})).data).toBe("ok");
    expect(seen.rejected).toEqual([TOKEN_A]);
    expect(arrivals.map((a) => a.headers["svc-access-token"])).toEqual([TOKEN_A, TOKEN_B]);
  });

  it("rejected again: the error, after one repeat only", async () => {
    answer(svc(1600001));
    const { t, seen, delays } = transport();
    const e = await failure(t.request(op("query"), {}));
    expect(e).toBeInstanceOf(E.SvcAuthError);
    expect(e.code).toBe(1600001);
    expect(seen.rejected).toEqual([TOKEN_A]);
    expect(arrivals).toHaveLength(2);
    expect(delays).toEqual([]);
  });

  it("the repeat does not use up an attempt of the retries", async () => {
    answer(svc(1600001), html503, svc(200, "ok"));
    const { t } = transport({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const cap = captureLogger();
    const env = await t.with({ logger: cap.logger }).request(op("query"), {});
    expect(env.data).toBe("ok");
    expect(arrivals).toHaveLength(3);
    const attempts = cap.lines.map((l) => (JSON.parse(l) as { attempt: number }).attempt);
    expect(attempts).toEqual([1, 1, 2]);
  });

  it("only the operation's token codes count (getAuthorizeUrl's 1601000)", async () => {
    answer(svc(1601000), svc(200, "url"));
    const { t, seen } = transport();
    expect((await failure(t.request(op("write"), {}))).code).toBe(1601000);
    expect(seen.rejected).toEqual([]);
    answer(svc(1601000), svc(200, "url"));
    const authorize = op("write", { tokenRejectedCodes: [1600001, 1601000] });
    expect((await t.request(authorize, {})).data).toBe("url");
    expect(seen.rejected).toEqual([TOKEN_A]);
  });

  it("a token the caller gave, or no token at all, is not handed to the provider", async () => {
    answer(svc(1600001));
    const { t, seen } = transport();
    await failure(t.request(op("query"), { token: "given-token" }));
    await failure(t.request(op("none"), {}));
    expect(seen.rejected).toEqual([]);
    expect(arrivals).toHaveLength(2);
  });
});

describe("secrets, logs and metrics", () => {
  it("redacts every secret the service echoes: token, body keys, the provider's and the caller's", async () => {
    const secrets = {
      apiKey: "sec-apikey-1111",
      refreshToken: "sec-refresh-2222",
      accessToken: "sec-access-3333",
      code: "sec-code-4444",
      platformToken: "sec-platform-5555",
    };
    const providerSecret = "sec-provider-6666";
    const callerSecret = "sec-caller-7777";
    answer((res, a) =>
      send(200, envelope(1600100, null, `echo ${a.headers["svc-access-token"]} ${a.body}`))(res, a),
    );
    const { tokens } = tokenProvider([providerSecret]);
    const cap = captureLogger();
    const t = new Transport({
      baseUrl: base,
      tokens,
      logger: cap.logger,
      retry: { maxAttempts: 1 },
    });
    const e = await failure(
      t.request(op("write"), {
        body: { ...secrets, note: `${providerSecret} ${callerSecret}` },
        secrets: [callerSecret, undefined],
      }),
    );
    const text = `${e.message} ${JSON.stringify(e)} ${cap.lines.join("\n")}`;
    expect(e.message).toContain("[redacted]");
    for (const s of [TOKEN_A, providerSecret, callerSecret, ...Object.values(secrets)])
      expect(text).not.toContain(s);
  });

  it("logs a success at debug with operation, attempt, code and requestId, and no token", async () => {
    answer(svc(200, 1));
    const cap = captureLogger();
    const o = op("query");
    await transport({ logger: cap.logger }).t.request(o, {});
    expect(cap.lines).toHaveLength(1);
    const line = JSON.parse(cap.lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 20,
      svcOp: o.name,
      attempt: 1,
      code: 200,
      requestId: "rq-200",
    });
    // Milliseconds of this call (not of the epoch).
    expect(line.ms).toBeGreaterThanOrEqual(0);
    expect(line.ms).toBeLessThan(600_000);
    expect(cap.lines[0]).not.toContain(TOKEN_A);
  });

  it("logs a rejected token at info, without the token", async () => {
    answer(svc(1600001), svc(200));
    const cap = captureLogger();
    const o = op("query");
    await transport({ logger: cap.logger }).t.request(o, {});
    const first = JSON.parse(cap.lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 30, svcOp: o.name, code: 1600001, error: "SvcAuthError" });
    expect(cap.lines.join("\n")).not.toContain(TOKEN_A);
  });

  it("counts every attempt by result and times it in seconds", async () => {
    const o = op("query");
    answer((res, a) => setTimeout(() => svc(200)(res, a), 300));
    await transport().t.request(o, {});
    answer(svc(4242));
    await failure(transport().t.request(o, {}));
    expect(await counted(o.name)).toEqual({ "200": 1, other: 1 });
    const { values } = await svcCallDuration.get();
    const sum = values.find(
      (v) => v.labels.operation === o.name && v.metricName?.endsWith("_sum"),
    )!.value;
    expect(sum).toBeGreaterThanOrEqual(0.29);
    expect(sum).toBeLessThan(30);
    const timed = op("query");
    answer((res, a) => setTimeout(() => svc(200)(res, a), 300));
    await failure(transport({ timeoutMs: 100, retry: { maxAttempts: 1 } }).t.request(timed, {}));
    expect(await counted(timed.name)).toEqual({ timeout: 1 });
    const { values: after } = await svcCallDuration.get();
    const tsum = after.find(
      (v) => v.labels.operation === timed.name && v.metricName?.endsWith("_sum"),
    )!.value;
    expect(tsum).toBeGreaterThanOrEqual(0.09);
    expect(tsum).toBeLessThan(30);
  });
});
