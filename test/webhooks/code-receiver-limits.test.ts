/**
 * The authorization-code receiver (POST /svc/auth/callback) is open to anyone: its body is read
 * with an 8 KB limit that stops reading as soon as it is passed, and concurrent first requests
 * create one partner account. Through real HTTP; no request here reaches the service (unknown
 * states are refused before any exchange).
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ActionFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRoutes } from "../helpers/app-server";
import { callRoute } from "../helpers/remix";

const SVC_BASE_URL = "http://127.0.0.1:9/svc";
type Action = (args: ActionFunctionArgs) => unknown;

let action: Action;
let prisma: typeof import("../../app/db.server").prisma;
let app: Awaited<ReturnType<typeof serveRoutes>>;
let streaming: Awaited<ReturnType<typeof streamingServer>>;

beforeAll(async () => {
  // The configuration is read at import: set the flow's variables first.
  process.env.SVC_BASE_URL = SVC_BASE_URL;
  process.env.SVC_PARTNER_API_KEY = "partner-api-key-for-tests";
  action = (await import("../../app/routes/svc.auth.callback")).action;
  prisma = (await import("../../app/db.server")).prisma;
  app = await serveRoutes({ "/svc/auth/callback": action });
  streaming = await streamingServer(action);
});
afterAll(async () => {
  await app.close();
  await streaming.close();
  delete process.env.SVC_BASE_URL;
  delete process.env.SVC_PARTNER_API_KEY;
});

/**
 * Serves one route with the request body streamed as Remix's node adapter streams it (the
 * test helper's serveRoutes reads the whole body first), counting the bytes the route reads.
 */
async function streamingServer(route: Action) {
  const meter = { delivered: 0 };
  const server: Server = createServer((req, res) => {
    const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const next = await chunks.next();
          if (next.done) return controller.close();
          meter.delivered += next.value.byteLength;
          controller.enqueue(new Uint8Array(next.value));
        },
      },
      { highWaterMark: 0 },
    );
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://app.test${req.url}`, {
      method: req.method,
      headers,
      body,
      duplex: "half",
    } as RequestInit);
    void callRoute(route, request).then(async (response) => {
      const bytes = Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(bytes);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    meter,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * POSTs a body of up to `total` bytes in 16 KB chunks, as fast as the server takes them, and
 * stops at the reply. Returns the status and how much was sent by then.
 */
function sendUntilReply(port: number, opts: { total: number; declare?: number }) {
  return new Promise<{ status: number; sent: number }>((resolve, reject) => {
    let sent = 0;
    let replied = false;
    const headers: Record<string, string | number> = { "content-type": "application/json" };
    if (opts.declare !== undefined) headers["content-length"] = opts.declare;
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: "/svc/auth/callback",
      method: "POST",
      headers,
    });
    req.on("response", (res) => {
      replied = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sent });
      req.destroy();
    });
    req.on("error", (error) => {
      if (!replied) reject(error);
    });
    const chunk = Buffer.alloc(16 * 1024, "x");
    const pump = () => {
      while (!replied && sent < opts.total) {
        sent += chunk.byteLength;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
    };
    pump();
  });
}

const post = (body: string) =>
  fetch(`${app.url}/svc/auth/callback`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

describe("body limit of the code receiver", () => {
  it("9 KB: 413 with the receiver's reply; 8 KB is read and answered on its merits", async () => {
    const over = await post(JSON.stringify({ code: "c", state: "s", pad: "x".repeat(9 * 1024) }));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ result: "1", message: "body too large" });
    const base = JSON.stringify({ code: "c", state: "no-such-state", pad: "" });
    const within = await post(
      base.replace('"pad":""', `"pad":"${"x".repeat(8192 - base.length)}"`),
    );
    expect(within.status).toBe(400);
    expect(await within.json()).toEqual({ result: "1", message: "unknown state" });
  });

  it("50 MB declared: 413 at once, before the route reads a byte of it", async () => {
    const before = streaming.meter.delivered;
    // Only 64 KB of the declared 50 MB are ever sent: the reply must come without the rest.
    const reply = await sendUntilReply(streaming.port, {
      total: 64 * 1024,
      declare: 50 * 1024 * 1024,
    });
    expect(reply.status).toBe(413);
    expect(streaming.meter.delivered - before).toBe(0);
  });

  it("50 MB streamed without a declared length: 413 once 8 KB are passed, the rest never read", async () => {
    const before = streaming.meter.delivered;
    const reply = await sendUntilReply(streaming.port, { total: 50 * 1024 * 1024 });
    expect(reply.status).toBe(413);
    // The route read past 8 KB by at most one socket read (64 KB), and the client was stopped
    // long before it could send its 50 MB.
    expect(streaming.meter.delivered - before).toBeLessThanOrEqual(8 * 1024 + 64 * 1024);
    expect(reply.sent).toBeLessThan(50 * 1024 * 1024);
  });

  it("JSON nested deeper than the receiver's 8 levels: 400 with a plain reason", async () => {
    const res = await post(`{"code":${"[".repeat(3000)}${"]".repeat(3000)},"state":"s"}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      result: "1",
      message: "JSON is nested deeper than 8 levels",
    });
  });
});

describe("the partner account", () => {
  it("20 concurrent first requests create one partner account, keyed by the base URL", async () => {
    await prisma.svcAccount.deleteMany({ where: { authMethod: "partner" } });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(JSON.stringify({ code: "c", state: `unknown-${i}` })),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(400));
    const accounts = await prisma.svcAccount.findMany({
      where: { authMethod: "partner" },
      select: { partnerKey: true, baseUrl: true, shopDomain: true, apiKeyEnc: true },
    });
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({
      partnerKey: SVC_BASE_URL,
      baseUrl: SVC_BASE_URL,
      shopDomain: null,
    });
    // The operator's key is stored encrypted, never in clear.
    expect(accounts[0]!.apiKeyEnc).toMatch(/^v2\./);
    expect(accounts[0]!.apiKeyEnc).not.toContain("partner-api-key-for-tests");
  });
});
