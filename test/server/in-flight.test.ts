/**
 * The server's cap on requests in progress (HTTP_MAX_IN_FLIGHT), through real HTTP: past it a
 * request gets 503 with Retry-After at once, without reaching a route; the probes are answered
 * whatever the load; a finished or abandoned request frees its place.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, createAppServer } from "../../server/app-server";
import { captureRuntime, fakeBuild } from "./fake-build";

/** Requests to /slow wait here until released. */
const waiting: (() => void)[] = [];
let reachedSlow = 0;
let reachedWebhook = 0;

const build = fakeBuild({
  healthz: { loader: () => Response.json({ ok: true }) },
  readyz: { loader: () => Response.json({ ready: true }) },
  slow: {
    loader: async () => {
      reachedSlow++;
      await new Promise<void>((r) => waiting.push(r));
      return Response.json({ slow: true });
    },
  },
  "webhooks/orders/paid": {
    action: async ({ request }) => {
      await request.arrayBuffer();
      reachedWebhook++;
      return new Response(null, { status: 200 });
    },
  },
});
const captured = captureRuntime();
let app: AppServer;
let base: string;

beforeAll(async () => {
  app = createAppServer(build, { runtime: captured.runtime, maxInFlight: 2 });
  base = `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}`;
});
afterAll(() => app.close(1000));

/** Resolves once `check` holds (never, if it never does). */
async function waitFor(check: () => boolean) {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

async function until(check: () => boolean) {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe("requests in progress are capped", () => {
  it("answers 503 with Retry-After past the cap, keeps the probes, and frees a place once a request ends", async () => {
    const first = fetch(`${base}/slow`);
    const second = fetch(`${base}/slow`);
    await until(() => reachedSlow === 2);

    // Full: a webhook with a body is refused at once, unread by any route, and told when to retry.
    const refused = await fetch(`${base}/webhooks/orders/paid`, {
      method: "POST",
      body: JSON.stringify({ id: 1, pad: "x".repeat(50_000) }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ error: "busy: try again shortly" });
    expect(reachedWebhook).toBe(0);
    expect((await fetch(`${base}/slow`)).status).toBe(503);
    expect(reachedSlow).toBe(2);

    // The probes answer whatever the load.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    // One finishes: its place is free again.
    waiting.shift()!();
    expect((await first).status).toBe(200);
    const accepted = await fetch(`${base}/webhooks/orders/paid`, {
      method: "POST",
      body: JSON.stringify({ id: 2 }),
    });
    expect(accepted.status).toBe(200);
    expect(reachedWebhook).toBe(1);

    waiting.shift()!();
    expect((await second).status).toBe(200);
    const refusals = captured.observations.filter((o) => o.status === 503);
    expect(refusals.map((o) => o.route).sort()).toEqual(["/slow", "/webhooks/orders/paid"]);
  });

  it("a client that gives up frees its place", async () => {
    const before = reachedSlow;
    const gone = httpRequest(`${base}/slow`);
    gone.on("error", () => {});
    gone.end();
    const other = fetch(`${base}/slow`);
    await until(() => reachedSlow === before + 2);
    expect((await fetch(`${base}/slow`)).status).toBe(503);

    gone.destroy();
    // A new request is admitted (reaches the route) once the abandoned one's place is back.
    let admitted: Promise<Response> | undefined;
    for (let i = 0; i < 200 && !admitted; i++) {
      const n = reachedSlow;
      const r = fetch(`${base}/slow`);
      const status = await Promise.race([
        r.then((x) => x.status),
        waitFor(() => reachedSlow > n).then(() => 0),
      ]);
      if (status === 0) admitted = r;
      else await new Promise((res) => setTimeout(res, 20));
    }
    expect(admitted).toBeDefined();
    while (waiting.length) waiting.shift()!();
    expect((await other).status).toBe(200);
    expect((await admitted!).status).toBe(200);
  });
});
