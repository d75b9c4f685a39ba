/**
 * The request log, request ids, trusted proxies, static files and the drain on shutdown,
 * through real HTTP against createAppServer (Remix's real request handler, a small build).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDraining, setDraining } from "../../app/draining.server";
import { type AppServer, createAppServer } from "../../server/app-server";
import { captureRuntime, fakeBuild } from "./fake-build";

let release: () => void = () => {};
const echo = async ({ request }: { request: Request }) => {
  captured.runtime.logger.info({}, "inside the route");
  return Response.json({
    url: request.url,
    forwardedFor: request.headers.get("x-forwarded-for"),
    requestId: request.headers.get("x-request-id"),
  });
};
const build = fakeBuild({
  "webhooks/svc/:secret": { action: echo },
  "app/orders/:id": { loader: echo },
  // As the app's file routes are named: a dispute attachment's unguessable address, and a kept
  // file's signed link.
  "files/:token": { loader: echo },
  "files/s/:id": { loader: echo },
  echo: { loader: echo },
  slow: {
    loader: async () => {
      await new Promise<void>((r) => (release = r));
      return new Response("slow and done");
    },
  },
});
const captured = captureRuntime();
const publicDir = mkdtempSync(join(tmpdir(), "public-"));
mkdirSync(join(publicDir, "build"));
writeFileSync(join(publicDir, "build", "entry-ABC.js"), "console.log('hi')");

async function start(trustProxy = 0) {
  const app = createAppServer(build, { runtime: captured.runtime, publicDir, trustProxy });
  return { app, base: `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}` };
}

let app: AppServer;
let base: string;
beforeAll(async () => ({ app, base } = await start()));
afterAll(() => app.close(1000));

const secret = () => randomBytes(24).toString("base64url");

describe("the request log", () => {
  it("never carries a secret path, token, hmac, Authorization, Cookie or signature", async () => {
    const secrets = {
      path: secret(),
      idToken: `eyJ${secret()}`,
      hmac: secret(),
      session: secret(),
      code: secret(),
      bearer: secret(),
      cookie: secret(),
      shopifyHmac: secret(),
      sign: secret(),
      stray: secret(),
    };
    const headers = {
      Authorization: `Bearer ${secrets.bearer}`,
      Cookie: `session=${secrets.cookie}`,
      "X-Shopify-Hmac-Sha256": secrets.shopifyHmac,
      sign: secrets.sign,
    };
    const query = `id_token=${secrets.idToken}&hmac=${secrets.hmac}&session=${secrets.session}&shop=demo.myshopify.com`;
    const answers = await Promise.all([
      fetch(`${base}/webhooks/svc/${secrets.path}?${query}`, {
        method: "POST",
        headers,
        body: "{}",
      }),
      fetch(`${base}/app/orders/42?${query}&code=${secrets.code}`, { headers }),
      // A path no route has, with a token-like segment in it.
      fetch(`${base}/webhooks/svc/${secrets.stray}/extra`, { headers }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404]);
    await new Promise((r) => setTimeout(r, 50)); // the log line is written when the socket closes
    const log = captured.text();
    for (const [name, value] of Object.entries(secrets)) {
      expect(log.includes(value), `${name} is in the log`).toBe(false);
    }
    const lines = captured.lines().filter((l) => l.msg === "request");
    const svc = lines.find((l) => l.route === "/webhooks/svc/:secret");
    expect(svc?.path).toBe(
      "/webhooks/svc/[redacted]?id_token=[redacted]&hmac=[redacted]&session=[redacted]&shop=demo.myshopify.com",
    );
    expect(lines.find((l) => l.route === "/app/orders/:id")?.path).toContain("/app/orders/42?");
    expect(lines.find((l) => l.route === "unmatched")?.path).toBe("/webhooks/svc/[redacted]/extra");
    const routes = captured.observations.map((o) => o.route);
    expect(routes).toContain("/webhooks/svc/:secret");
    // The file addresses: the token and the link's signature are credentials too.
    const [token, mac] = [secret(), secret()];
    await fetch(`${base}/files/${token}`);
    await fetch(`${base}/files/s/cm123?u=1790000000000&m=${mac}`);
    await new Promise((r) => setTimeout(r, 50));
    expect(captured.text().includes(token)).toBe(false);
    expect(captured.text().includes(mac)).toBe(false);
    const fileLines = captured.lines().filter((l) => l.msg === "request");
    expect(fileLines.find((l) => l.route === "/files/:token")?.path).toBe("/files/[redacted]");
    expect(fileLines.find((l) => l.route === "/files/s/:id")?.path).toBe(
      "/files/s/cm123?u=[redacted]&m=[redacted]",
    );
    expect(routes.some((r) => r.includes(secrets.path))).toBe(false);
  });

  it("takes a sane X-Request-Id, answers with it and puts it on every line of the request", async () => {
    const res = await fetch(`${base}/echo`, { headers: { "X-Request-Id": "lb-req-12345678" } });
    expect(res.headers.get("x-request-id")).toBe("lb-req-12345678");
    expect(((await res.json()) as { requestId: string }).requestId).toBe("lb-req-12345678");
    await new Promise((r) => setTimeout(r, 50));
    const mine = captured.lines().filter((l) => l.requestId === "lb-req-12345678");
    expect(mine.map((l) => l.msg).sort()).toEqual(["inside the route", "request"]);

    const odd = await fetch(`${base}/echo`, {
      headers: { "X-Request-Id": "bad id\u00e9<script>" },
    });
    expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("proxies", () => {
  const forwarded = {
    "X-Forwarded-For": "203.0.113.9, 198.51.100.7",
    "X-Forwarded-Proto": "https",
  };

  it("believes no X-Forwarded-* by default, and hides them from the app", async () => {
    const body = (await (await fetch(`${base}/echo`, { headers: forwarded })).json()) as {
      url: string;
      forwardedFor: string | null;
    };
    expect(body.url.startsWith("http://")).toBe(true);
    expect(body.forwardedFor).toBeNull();
  });

  it("with one trusted proxy, takes the address and protocol that proxy saw", async () => {
    const proxied = await start(1);
    try {
      const res = await fetch(`${proxied.base}/echo`, {
        headers: { ...forwarded, "X-Request-Id": "proxied-123456" },
      });
      const body = (await res.json()) as { url: string };
      expect(body.url.startsWith("https://")).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      const line = captured.lines().find((l) => l.requestId === "proxied-123456" && l.ip);
      expect(line?.ip).toBe("198.51.100.7");
    } finally {
      await proxied.app.close(1000);
    }
  });
});

describe("static files", () => {
  it("serves public/ with long caching for the build, and nothing outside it", async () => {
    const res = await fetch(`${base}/build/entry-ABC.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(await res.text()).toBe("console.log('hi')");
    expect((await fetch(`${base}/build/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
  });
});

describe("shutdown", () => {
  it("answers the request in flight, refuses new connections, and turns readiness off", async () => {
    const own = await start();
    setDraining(false);
    const inFlight = fetch(`${own.base}/slow`).then(async (r) => [r.status, await r.text()]);
    await new Promise((r) => setTimeout(r, 100)); // the request has reached the route
    const closed = own.app.close(10_000);
    expect(isDraining()).toBe(true);
    await expect(fetch(`${own.base}/echo`)).rejects.toThrow();
    release();
    expect(await inFlight).toEqual([200, "slow and done"]);
    await closed;
    expect(own.app.server.listening).toBe(false);
    setDraining(false);
  });
});
