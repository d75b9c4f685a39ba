/**
 * Body limits through real HTTP: createAppServer on a loopback port with Remix's real request
 * handler around a small build of resource routes that read their bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, createAppServer } from "../../server/app-server";
import { sendBig, sendSlowly } from "./client";
import { captureRuntime, fakeBuild } from "./fake-build";

const MB = 1024 * 1024;
const SECRET = "s3cr3t-webhook-path-0123456789abcdef";
/** What each route's action saw: the body's length. */
const reached: { route: string; bytes: number }[] = [];
const reader =
  (route: string) =>
  async ({ request }: { request: Request }) => {
    const bytes = (await request.arrayBuffer()).byteLength;
    reached.push({ route, bytes });
    return Response.json({ bytes });
  };

/** Body readers a route left holding after reading one chunk and answering (see "peek"). */
const held: ReadableStreamDefaultReader<Uint8Array>[] = [];

const build = fakeBuild({
  healthz: { loader: () => Response.json({ ok: true }) },
  "webhooks/orders/create": { action: reader("orders") },
  "webhooks/svc/:secret": { action: reader("svc") },
  "svc/auth/callback": { action: reader("code") },
  "app/disputes/:id": {
    action: async (args: { request: Request; params: Record<string, string | undefined> }) => {
      if (args.params.id !== "peek") return reader("dispute")(args);
      // A route that refuses after its first chunk and keeps the body (as a parser may).
      const body = args.request.body!.getReader();
      await body.read();
      held.push(body);
      return Response.json({ error: "refused" }, { status: 422 });
    },
  },
});
const captured = captureRuntime();
let app: AppServer;
let base: string;

beforeAll(async () => {
  app = createAppServer(build, {
    runtime: captured.runtime,
    requestTimeoutMs: 1500,
    headersTimeoutMs: 1000,
    timeoutCheckIntervalMs: 200,
  });
  base = `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}`;
});
afterAll(() => app.close(1000));

describe("bodies over the route's limit", () => {
  it("refuses a service webhook over 256 KiB with 413 (declared and chunked), not a reset", async () => {
    reached.length = 0;
    const url = `${base}/webhooks/svc/${SECRET}`;
    const declared = await sendBig(url, { bytes: 300 * 1024, chunked: false });
    const chunked = await sendBig(url, { bytes: 300 * 1024, chunked: true });
    expect(declared).toEqual({ status: 413 });
    expect(chunked).toEqual({ status: 413 });
    // The chunked one reached the route, which saw its read fail: nothing was accepted.
    expect(reached).toEqual([]);
    const within = await fetch(url, { method: "POST", body: "x".repeat(200 * 1024) });
    expect(within.status).toBe(200);
    expect(await within.json()).toEqual({ bytes: 200 * 1024 });
  });

  it("refuses the code receiver over 8 KiB and lets 8 KiB through", async () => {
    const url = `${base}/svc/auth/callback`;
    const over = await fetch(url, { method: "POST", body: "x".repeat(8 * 1024 + 1) });
    expect(over.status).toBe(413);
    expect(over.headers.get("connection")).toBe("close");
    expect(await over.json()).toEqual({ error: "request body too large" });
    expect((await sendBig(url, { bytes: 64 * 1024, chunked: true })).status).toBe(413);
    const at = await fetch(url, { method: "POST", body: "x".repeat(8 * 1024) });
    expect(await at.json()).toEqual({ bytes: 8 * 1024 });
  });

  it("takes a dispute page's upload limit only for a multipart post; its other posts are admin posts", async () => {
    reached.length = 0;
    const url = `${base}/app/disputes/7`;
    const multipart = { "content-type": "multipart/form-data; boundary=x" };
    const form = { "content-type": "application/x-www-form-urlencoded" };
    // 2 MB: over the admin limit (1 MB), within the upload limit (61 MB).
    expect(await sendBig(url, { bytes: 2 * MB, chunked: false, headers: form })).toEqual({
      status: 413,
    });
    expect(await sendBig(url, { bytes: 2 * MB, chunked: true, headers: form })).toEqual({
      status: 413,
    });
    const upload = await fetch(url, {
      method: "POST",
      headers: multipart,
      body: new Uint8Array(2 * MB),
    });
    expect(upload.status).toBe(200);
    expect(reached).toEqual([{ route: "dispute", bytes: 2 * MB }]);
    // Over 6 files of 10 MB and the fields: refused before a byte is read.
    expect(await sendBig(url, { bytes: 62 * MB, chunked: false, headers: multipart })).toEqual({
      status: 413,
    });
    expect(reached).toHaveLength(1);
  });

  it("refuses a GET or HEAD that carries a body, without calling the route", async () => {
    const res = await sendSlowly(`${base}/healthz`, {
      method: "GET",
      first: "abc",
      declared: 3,
      rest: "",
      pauseMs: 0,
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain("takes no body");
  });

  it("answers 408 when a body stops arriving", async () => {
    const res = await sendSlowly(`${base}/webhooks/orders/create`, {
      first: "{",
      declared: 100,
      pauseMs: 0,
    });
    expect(res.status).toBe(408);
  });

  it("a body the route left unread is dropped as it arrives, not kept for the route", async () => {
    held.length = 0;
    const multipart = { "content-type": "multipart/form-data; boundary=x" };
    const outcomes = await Promise.all(
      [false, true].map((chunked) =>
        sendBig(`${base}/app/disputes/peek`, { bytes: 40 * MB, chunked, headers: multipart }),
      ),
    );
    expect(outcomes).toEqual([{ status: 422 }, { status: 422 }]);
    expect(held).toHaveLength(2);
    // The client has stopped; whatever arrived after the answer was read and dropped. What
    // waits in each body stream is at most its queue (64 KiB and one chunk), not the megabytes
    // that came after the answer.
    for (const body of held) {
      let queued = 0;
      for (;;) {
        const next = await Promise.race([
          body.read(),
          new Promise<null>((r) => setTimeout(() => r(null), 50)),
        ]);
        if (next === null || next.done) break;
        queued += next.value.byteLength;
      }
      expect(queued).toBeLessThanOrEqual(128 * 1024);
    }
  });

  it("refuses 16 concurrent 50 MB bodies with 413 and /healthz answers (RSS growth printed; bench:edges holds the goal)", async () => {
    const routes = [
      `${base}/webhooks/orders/create`,
      `${base}/webhooks/svc/${SECRET}`,
      `${base}/svc/auth/callback`,
      `${base}/no/such/route`,
    ];
    // Warm up (code paths, buffers) before the baseline.
    await Promise.all(routes.map((url) => sendBig(url, { bytes: 2 * MB, chunked: true })));
    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    reached.length = 0;
    const storm = Array.from({ length: 16 }, (_, i) =>
      sendBig(routes[i % routes.length]!, { bytes: 50 * MB, chunked: i % 2 === 1 }),
    );
    const healthStarted = performance.now();
    const health = await fetch(`${base}/healthz`);
    const healthMs = performance.now() - healthStarted;
    const outcomes = await Promise.all(storm);
    clearInterval(sampler);
    // The process's RSS growth, printed: memory goals live in bench:edges (this process also
    // holds the clients and, on a busy machine, other files' workers).
    const growthMb = (peak - baseline) / MB;
    console.log(
      `16 × 50 MB: /healthz answered in ${healthMs.toFixed(1)} ms; RSS grew ${growthMb.toFixed(1)} MB`,
    );
    expect(health.status).toBe(200);
    expect(outcomes.map((o) => o.status)).toEqual(Array(16).fill(413));
    expect(reached).toEqual([]);
  });
});
