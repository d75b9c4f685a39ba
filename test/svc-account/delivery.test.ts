/**
 * The service's deliveries end to end (real HTTP, both simulators, the worker):
 * - a paused account (past 50% failed deliveries) resumes after the gap-triggered and after the
 *   scheduled re-registration, and the missed events arrive;
 * - two shops on one service account share one callback, and each gets its own tracking.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../fulfilment/harness";

// The app's address (read at import) is a forwarder started first, so that the callback the app
// registers reaches the harness's server, and can be made to fail.
let failing = false;
let target = "";
const forwarder: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (failing) return void res.writeHead(500).end();
    void fetch(`${target}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && k !== "host"),
      ) as Record<string, string>,
      body: Buffer.concat(chunks),
    })
      .then(async (r) => res.writeHead(r.status).end(Buffer.from(await r.arrayBuffer())))
      .catch(() => res.writeHead(502).end());
  });
});
await new Promise<void>((r) => forwarder.listen(0, "127.0.0.1", r));
process.env.SHOPIFY_APP_URL = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
const { prisma, startHarness } = await import("../fulfilment/harness");
const { registerAccountWebhooks } = await import("../../app/svc-account/webhooks.server");
const { reconcileAccount } = await import("../../app/fulfilment/reconcile/index.server");
const { enqueue } = await import("../../app/jobs/enqueue.server");
const { SVC_ACCOUNT_JOB } = await import("../../app/svc-account/kinds");

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "paused.myshopify.com", balance: "900.00" });
  target = h.appUrl;
  // The app registers its own callback (the harness's direct one is replaced).
  await registerAccountWebhooks(prisma, h.accountId, { clientFor: (id) => h.deps.svcFor(id) });
});
afterAll(async () => {
  await h?.close();
  forwarder.closeAllConnections();
  await new Promise((r) => forwarder.close(r));
});

const simHooks = () => h.svc.state.accounts.get(h.simAccountId)!.webhooks;
const mine = () => h.svc.webhookDeliveries().filter((d) => d.accountId === h.simAccountId);

async function paidOrders(n: number, tag: string) {
  const product = await h.connectedProduct(`Thing ${tag}`, "10.00");
  const out = [];
  for (let i = 0; i < n; i++) out.push(await h.order([{ product, quantity: 1 }]));
  await h.settle();
  return Promise.all(out.map(async (o) => ({ ...o, row: await h.row(o.legacyId) })));
}

/** Ships the orders while the app's address fails, until the service pauses the account. */
async function shipWhilePaused(orders: Awaited<ReturnType<typeof paidOrders>>, tag: string) {
  failing = true;
  orders.forEach((o, i) => h.svc.ship(o.row.svcOrderId!, { trackNumber: `${tag}-${i}` }));
  await h.svc.deliverPendingWebhooks();
  // Retries fail too, until failures pass half of the attempts since the last webhook/set.
  for (let i = 0; i < 3 && !simHooks().paused; i++) {
    h.svc.clock.advance(5 * 60_000);
    await h.svc.deliverPendingWebhooks();
  }
  expect(simHooks().paused).toBe(true);
  failing = false;
  h.svc.clock.advance(11 * 60_000); // retries due, and past the gap grace period
  await h.svc.deliverPendingWebhooks();
  expect(simHooks().paused).toBe(true); // nothing is sent while paused
}

describe("a paused account resumes after re-registration", () => {
  it("after a run of delivery gaps found by the reconciler", async () => {
    const orders = await paidOrders(4, "gap");
    const setsBefore = h.svc.calls({ op: "webhookSet", accountId: h.simAccountId }).length;
    await shipWhilePaused(orders, "GAP");

    const r = await reconcileAccount(h.deps, h.accountId);
    expect(r.gaps).toBe(4);
    await h.settle();
    expect(h.svc.calls({ op: "webhookSet", accountId: h.simAccountId }).length).toBe(
      setsBefore + 1,
    );
    expect(simHooks().paused).toBe(false);
    await h.settle();
    // The missed events arrived (stored once each), and every order has its tracking.
    expect(mine().every((d) => d.delivered)).toBe(true);
    for (const o of orders) {
      const f = h.shop.fulfillments(h.shopDomain, o.shopOrderId);
      expect(f).toHaveLength(1);
      expect(f[0]!.tracking[0]!.number).toMatch(/^GAP-/);
    }
    const events = await prisma.webhookEvent.findMany({
      where: { shopDomain: h.shopDomain, topic: "LOGISTIC" },
    });
    expect(events.length).toBe(new Set(events.map((e) => e.eventKey)).size);
    expect(events.length).toBeGreaterThanOrEqual(4);
    expect(
      (await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } })).webhookGaps,
    ).toBe(0);
  });

  it("on the schedule, without waiting for gaps", async () => {
    const orders = await paidOrders(4, "sched");
    await shipWhilePaused(orders, "SCHED");
    await enqueue(prisma, { kind: SVC_ACCOUNT_JOB.reregisterAll });
    await h.settle();
    expect(simHooks().paused).toBe(false);
    await h.settle();
    for (const o of orders) {
      expect(h.shop.fulfillments(h.shopDomain, o.shopOrderId)[0]?.tracking[0]?.number).toMatch(
        /^SCHED-/,
      );
    }
    // The webhooks, not the reconciler, told: no track job came from a reconcile.
    expect(
      mine()
        .filter((d) => d.type === "LOGISTIC")
        .every((d) => d.delivered),
    ).toBe(true);
  });
});

describe("two shops on one service account", () => {
  it("share one callback, and each shop gets its own tracking", async () => {
    const other = await startHarness({ shopDomain: "sibling.myshopify.com", svc: h.svc });
    try {
      const a = await prisma.svcAccount.findUniqueOrThrow({ where: { id: h.accountId } });
      // The sibling is connected to the same service account (same key, tokens, open id) and
      // shares its secret, as connecting with the same key does.
      await prisma.svcAccount.update({
        where: { id: other.accountId },
        data: {
          apiKeyEnc: a.apiKeyEnc,
          accessTokenEnc: a.accessTokenEnc,
          accessTokenExpiresAt: a.accessTokenExpiresAt,
          refreshTokenEnc: a.refreshTokenEnc,
          refreshTokenExpiresAt: a.refreshTokenExpiresAt,
          openId: a.openId,
          webhookSecretEnc: a.webhookSecretEnc,
          webhookSecretHash: a.webhookSecretHash,
        },
      });
      const pa = await h.connectedProduct("Mine", "12.00");
      const pb = await other.connectedProduct("Theirs", "14.00");
      const oa = await h.order([{ product: pa, quantity: 1 }]);
      const ob = await other.order([{ product: pb, quantity: 1 }]);
      const settleBoth = async () => {
        for (let i = 0; i < 3; i++) await Promise.all([h.settle(), other.settle()]);
      };
      await settleBoth();
      const [ra, rb] = [await h.row(oa.legacyId), await other.row(ob.legacyId)];
      // Both orders were placed at the one service account.
      expect(h.svc.order(ra.svcOrderId!)?.accountId).toBe(h.simAccountId);
      expect(h.svc.order(rb.svcOrderId!)?.accountId).toBe(h.simAccountId);

      h.svc.ship(ra.svcOrderId!, { trackNumber: "TRK-MINE" });
      h.svc.ship(rb.svcOrderId!, { trackNumber: "TRK-THEIRS" });
      await settleBoth();
      expect(h.shop.fulfillments(h.shopDomain, oa.shopOrderId)[0]?.tracking[0]?.number).toBe(
        "TRK-MINE",
      );
      expect(
        other.shop.fulfillments(other.shopDomain, ob.shopOrderId)[0]?.tracking[0]?.number,
      ).toBe("TRK-THEIRS");
      // Each LOGISTIC event was stored for the shop that owns its order, and only there.
      const logistic = await prisma.webhookEvent.findMany({
        where: {
          topic: "LOGISTIC",
          payload: { path: ["params", "orderId"], equals: rb.svcOrderId! },
        },
      });
      expect(logistic.map((e) => e.shopDomain)).toEqual([other.shopDomain]);
      expect(logistic[0]!.eventKey.startsWith(`${other.accountId}:`)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
