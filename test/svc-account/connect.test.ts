/**
 * Service-account hygiene against the service simulator over HTTP: every connect path goes
 * through the guarded token path and registers the webhooks; shops on one service account
 * share one callback; uninstall cancels and logs out only when no other shop uses the account.
 */
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRoutes } from "../helpers/app-server";
import { type ServiceSim, startServiceSim } from "../sim/service/index";

let sim: ServiceSim;
let app: Awaited<ReturnType<typeof serveRoutes>>;
let prisma: PrismaClient;
let account: typeof import("../../app/svc-account/account.server");
let jobs: typeof import("../../app/worker/registry.server");
let worker: typeof import("../../app/worker/worker.server");
let secrets: typeof import("../../app/svc-account/webhooks.server");
let hashOf: (s: string) => string;

beforeAll(async () => {
  sim = await startServiceSim({ allowLoopbackWebhooks: true });
  const partner = sim.createAccount({ balance: "0" });
  // The app's configuration is read at import: the routes are imported once the app's address
  // and the service's are in the environment.
  app = await serveRoutes({
    "/webhooks/svc/:secret": async (args) =>
      (await import("../../app/routes/webhooks.svc.$secret")).action(args),
    "/svc/auth/callback": async (args) =>
      (await import("../../app/routes/svc.auth.callback")).action(args),
  });
  process.env.SVC_BASE_URL = sim.url;
  process.env.SVC_PARTNER_API_KEY = partner.apiKey;
  process.env.SHOPIFY_APP_URL = app.url;
  prisma = (await import("../../app/db.server")).prisma;
  account = await import("../../app/svc-account/account.server");
  jobs = await import("../../app/worker/registry.server");
  worker = await import("../../app/worker/worker.server");
  secrets = await import("../../app/svc-account/webhooks.server");
  hashOf = (await import("../../app/svc/webhook-secret.server")).hashWebhookSecret;
});
afterAll(async () => {
  await app?.close();
  await sim?.close();
  delete process.env.SVC_BASE_URL;
  delete process.env.SVC_PARTNER_API_KEY;
});

const calls = (op: string, accountId: string) => sim.calls({ op, accountId });
const setBodies = (accountId: string) =>
  calls("webhookSet", accountId).map((c) => c.body as Record<string, { type: string }>);
const row = (shop: string) => prisma.svcAccount.findUniqueOrThrow({ where: { shopDomain: shop } });
const callbackOf = (simAccountId: string) =>
  sim.state.accounts.get(simAccountId)?.webhooks.order?.callbackUrls[0];

async function runJobs() {
  const w = new worker.Worker({ prisma, handlers: jobs.handlers, pollMs: 10 });
  return w.drain();
}

describe("Connect with API key", () => {
  it("ten clicks in a minute make one getAccessToken, and the webhooks point at the app", async () => {
    const svc = sim.createAccount({ balance: "10.00", callsPerSecond: 50 });
    for (let i = 0; i < 10; i++) {
      await account.connectWithApiKey(prisma, "ten-clicks.myshopify.com", svc.apiKey);
    }
    expect(calls("getAccessToken", svc.accountId)).toHaveLength(1);
    const a = await row("ten-clicks.myshopify.com");
    expect(a.openId).toBe(svc.openId);
    expect(a.webhookRegisteredAt).not.toBeNull();
    expect(a.webhookSecret).toBeNull(); // never the clear column
    const secret = secrets.webhookSecretOf(a)!;
    expect(hashOf(secret)).toBe(a.webhookSecretHash);
    expect(callbackOf(svc.accountId)).toBe(`${app.url}/webhooks/svc/${secret}`);
    // The same secret every time: one callback address, registered again on each click.
    expect(new Set(setBodies(svc.accountId).map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it("ten concurrent first clicks with a new key make one getAccessToken", async () => {
    const svc = sim.createAccount({ balance: "10.00", callsPerSecond: 50 });
    const shop = "double-click.myshopify.com";
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => account.connectWithApiKey(prisma, shop, svc.apiKey)),
    );
    expect(calls("getAccessToken", svc.accountId)).toHaveLength(1);
    expect(results.some((r) => r.status === "fulfilled")).toBe(true);
    for (const r of results) {
      if (r.status === "rejected") expect(String(r.reason)).toMatch(/5 minutes/);
    }
    expect(await prisma.svcAccount.count({ where: { shopDomain: shop } })).toBe(1);
    expect((await row(shop)).accessTokenEnc).toBeTruthy();
  });

  it("a refused key gives the slot back; a different key within 5 minutes is refused clearly", async () => {
    const shop = "typo.myshopify.com";
    const good = sim.createAccount({ balance: "10.00", callsPerSecond: 50 });
    const other = sim.createAccount({ balance: "10.00", callsPerSecond: 50 });
    await expect(account.connectWithApiKey(prisma, shop, `${good.apiKey}x`)).rejects.toMatchObject({
      field: "apiKey",
      message: "The service refused this API key",
    });
    expect(await prisma.svcAccount.count({ where: { shopDomain: shop } })).toBe(0);
    await account.connectWithApiKey(prisma, shop, good.apiKey); // at once: nothing was issued
    expect(calls("getAccessToken", good.accountId)).toHaveLength(1);

    const refusal = account.connectWithApiKey(prisma, shop, other.apiKey);
    await expect(refusal).rejects.toMatchObject({ field: "apiKey" });
    await expect(refusal).rejects.toThrow(
      /one token request per 5 minutes: try again in 5 minutes/,
    );
    expect(calls("getAccessToken", other.accountId)).toHaveLength(0);
    expect((await row(shop)).openId).toBe(good.openId); // still connected with the good key
  });
});

describe("two shops on one service account", () => {
  it("share the tokens and one callback; uninstall cancels and logs out only for the last", async () => {
    const svc = sim.createAccount({ balance: "10.00", callsPerSecond: 50 });
    await account.connectWithApiKey(prisma, "first.myshopify.com", svc.apiKey);
    await account.connectWithApiKey(prisma, "second.myshopify.com", svc.apiKey);
    // The second shop used the first one's fresh tokens: no second request (the service would
    // have answered 1600200 within 5 minutes).
    expect(calls("getAccessToken", svc.accountId)).toHaveLength(1);
    const [a, b] = [await row("first.myshopify.com"), await row("second.myshopify.com")];
    expect(b.openId).toBe(a.openId);
    expect(b.webhookSecretHash).toBe(a.webhookSecretHash);
    expect(callbackOf(svc.accountId)).toBe(`${app.url}/webhooks/svc/${secrets.webhookSecretOf(a)}`);

    // A shop connected with another key before its siblings adopts their secret on registering.
    await prisma.svcAccount.update({
      where: { id: b.id },
      data: { webhookSecretEnc: null, webhookSecretHash: null },
    });
    await account.registerWebhooks(prisma, "second.myshopify.com");
    expect((await row("second.myshopify.com")).webhookSecretHash).toBe(a.webhookSecretHash);

    const { recordInstall, recordUninstall } = await import("../../app/shops/shops.server");
    const { recordEvent } = await import("../../app/events/store.server");
    const uninstall = async (shop: string) => {
      await recordInstall(prisma, shop, "read_orders");
      await recordUninstall(prisma, shop);
      await recordEvent({
        source: "shopify",
        shopDomain: shop,
        topic: "app/uninstalled",
        eventKey: `uninstall-${shop}`,
        payload: { id: 1 },
      });
      await runJobs();
    };
    const before = { sets: setBodies(svc.accountId).length };
    await uninstall("first.myshopify.com");
    // The second shop still uses the account: no CANCEL, no logout, its callback intact.
    expect(setBodies(svc.accountId)).toHaveLength(before.sets);
    expect(calls("logout", svc.accountId)).toHaveLength(0);
    expect(callbackOf(svc.accountId)).toBeTruthy();
    const gone = await row("first.myshopify.com");
    expect([gone.accessTokenEnc, gone.apiKeyEnc, gone.webhookSecretHash]).toEqual([
      null,
      null,
      null,
    ]);
    await expect(
      prisma.svcAccount.findUniqueOrThrow({ where: { id: b.id } }),
    ).resolves.toMatchObject({ webhookSecretHash: a.webhookSecretHash });

    await uninstall("second.myshopify.com");
    const last = setBodies(svc.accountId).at(-1)!;
    expect([last.order?.type, last.logistics?.type, last.product?.type]).toEqual([
      "CANCEL",
      "CANCEL",
      "CANCEL",
    ]);
    expect(calls("logout", svc.accountId)).toHaveLength(1);
    expect(sim.state.accounts.get(svc.accountId)?.webhooks.order?.type).toBe("CANCEL");
    expect((await row("second.myshopify.com")).accessTokenEnc).toBeNull();
  });
});

describe("the authorization-code flow", () => {
  it("registers the service webhooks once it has the tokens", async () => {
    const shop = "authorized.myshopify.com";
    const url = await account.startConnect(prisma, shop, true);
    const done = await (
      await fetch(`${url}&email=owner%40authorized.example`, { method: "POST" })
    ).json();
    expect(done.receiverBody).toEqual({ result: "0", message: "success" });
    const affiliated = [...sim.state.accounts.values()].find(
      (x) => x.email === "owner@authorized.example",
    )!;
    // Registered before the merchant is back on the settings page, as after an API-key connect.
    expect(calls("webhookSet", affiliated.accountId)).toHaveLength(1);
    const a = await row(shop);
    expect(a.webhookRegisteredAt).not.toBeNull();
    expect((await account.accountStatus(prisma, shop)).webhookProblem).toBeNull();
    expect(callbackOf(affiliated.accountId)).toBe(
      `${app.url}/webhooks/svc/${secrets.webhookSecretOf(a)}`,
    );
    // No getAccessToken for the affiliated account: its tokens came from the exchange.
    expect(calls("getAccessToken", affiliated.accountId)).toHaveLength(0);
    expect(await runJobs()).toBeGreaterThan(0); // the queued registration (again) and the import
  });

  it("says on the settings page when the registration failed, and Register again mends it", async () => {
    const shop = "authorized-unlucky.myshopify.com";
    const url = await account.startConnect(prisma, shop, true);
    sim.setFaults({ rate5xx: 1, ops: ["webhookSet"] });
    const done = await (
      await fetch(`${url}&email=owner%40unlucky.example`, { method: "POST" })
    ).json();
    sim.clearFaults();
    expect(done.receiverBody).toEqual({ result: "0", message: "success" });
    const status = await account.accountStatus(prisma, shop);
    expect(status.connected).toBe(true);
    expect(status.webhookRegisteredAt).toBeNull();
    expect(status.webhookProblem).toMatch(/did not accept the registration/);
    expect(status.webhookProblem).toMatch(/Register again/);
    expect(status.webhookProblem).not.toMatch(/Svc|code|5\d\d/); // plain words
    await account.registerWebhooks(prisma, shop); // the page's Register again
    const after = await account.accountStatus(prisma, shop);
    expect(after.webhookRegisteredAt).not.toBeNull();
    expect(after.webhookProblem).toBeNull();
    await runJobs(); // the queued registration and the import, done with
  });
});

describe("the queue", () => {
  it("cancels jobs no handler knows, so they never wait in the claim query", async () => {
    const { enqueue } = await import("../../app/jobs/enqueue.server");
    const old = new Date(Date.now() - 2 * 3600_000);
    const stale = await enqueue(prisma, { kind: "svc:DISPUTE", runAt: old });
    const ev = await prisma.webhookEvent.create({
      data: {
        source: "svc",
        shopDomain: "x.myshopify.com",
        topic: "DISPUTE",
        eventKey: "k-d",
        payload: {},
        jobId: stale.id,
      },
    });
    const fresh = await enqueue(prisma, { kind: "svc:FUTURE_KIND" }); // a newer version's, maybe
    await runJobs(); // the worker never claims them
    expect((await prisma.job.findUniqueOrThrow({ where: { id: stale.id } })).state).toBe(
      "available",
    );
    // The hourly janitor is one of the recurring jobs; only it runs here (all of them, the
    // reconciler and the scans included, took past the test's time on a busy machine).
    const janitor = jobs.recurringJobs.filter((j) => j.kind === "jobs.cancelUnknown");
    expect(janitor).toHaveLength(1);
    await worker.scheduleRecurring(prisma, janitor);
    await runJobs();
    expect(await prisma.job.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({
      state: "cancelled",
      lastError: "no handler for this job kind",
    });
    expect((await prisma.job.findUniqueOrThrow({ where: { id: fresh.id } })).state).toBe(
      "available",
    );
    expect(
      (await prisma.webhookEvent.findUniqueOrThrow({ where: { id: ev.id } })).ignoredReason,
    ).toBe("no handler for this event type");
  });
});
