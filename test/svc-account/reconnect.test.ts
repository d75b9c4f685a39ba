/**
 * Orders follow their service account (issue 35): disconnect, connect another account,
 * disconnect, reconnect the first. The orders paid before come back to the reconnected account
 * (recognised by the service's identity, not by our row id), the tracking jobs that died of the
 * expired authorization run again and bring the tracking, and while the account is away the
 * orders say what to do. Against the service simulator over HTTP, with the real worker.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { scheduleTrackHints } from "../../app/orders/schedule.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { JOB } from "../../app/orders/schedule.server";
import { ACCOUNT_GONE_FLAG, followAccount } from "../../app/svc-account/follow.server";
import { connectApiKey } from "../../app/svc-account/connect.server";
import { releaseAccount } from "../../app/svc-account/webhooks.server";
import { svcClient } from "../../app/svc/index.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { paidOrders } from "../fulfilment/track-helpers";

vi.setConfig({ testTimeout: 120_000 });

const MIN = 60_000;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "reconnect.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());

const connect = (apiKey: string) =>
  connectApiKey(prisma, {
    shop: h.shopDomain,
    baseUrl: h.svc.url,
    apiKey,
    tryKey: (key) => svcClient({ baseUrl: h.svc.url, timeoutMs: 5_000 }).auth.getAccessToken(key),
    now: () => h.svc.clock.now(),
  });
const disconnect = (accountId: string) =>
  releaseAccount(prisma, accountId, { detach: true, deps: { clientFor: h.deps.svcFor } });
const order = (id: string) => prisma.shopOrder.findUniqueOrThrow({ where: { id } });
const keyOf = (simAccountId: string) => h.svc.state.accounts.get(simAccountId)!.apiKey!;

describe("a reconnect", () => {
  it("brings the orders paid before back to their account, and their tracking", async () => {
    const [paid] = await paidOrders(h, 1, "Lamp");
    h.svc.clearFaults();
    const first = h.accountId;

    await disconnect(first);
    // Away: the order says what to do.
    expect(await order(paid!.id)).toMatchObject({
      svcAccountId: first,
      flag: ACCOUNT_GONE_FLAG,
      reasonMessage: expect.stringMatching(/connect that service account again/),
    });

    const other = h.svc.createAccount({ balance: "10.00", callsPerSecond: 50 });
    const b = await connect(other.apiKey);
    expect(b.id).not.toBe(first);
    // Another service account connected: the order cannot follow it, and still says so.
    expect(await order(paid!.id)).toMatchObject({ svcAccountId: first, flag: ACCOUNT_GONE_FLAG });

    // A tracking hint for the order meanwhile: its job dies of the forgotten authorization.
    const hint = await scheduleTrackHints(prisma, {
      accountId: first,
      shopDomain: h.shopDomain,
      orderIds: [paid!.id],
      hints: [],
    });
    await prisma.job.update({ where: { id: hint.id! }, data: { maxAttempts: 1 } });
    await h.worker.drain();
    const died = await prisma.job.findUniqueOrThrow({ where: { id: hint.id! } });
    expect(died.state).toBe("dead");
    expect(died.lastError).toMatch(/authorization has expired/);

    await disconnect(b.id);
    h.svc.clock.advance(6 * MIN); // the service's one getAccessToken per 5 minutes
    const again = await connect(keyOf(h.simAccountId));
    expect(again.id).not.toBe(first); // a new row: the service's identity is what matches
    expect(await order(paid!.id)).toMatchObject({
      svcAccountId: again.id,
      flag: null,
      reasonMessage: null,
    });
    const requeued = await prisma.job.findUniqueOrThrow({ where: { id: hint.id! } });
    expect(requeued).toMatchObject({ state: "available", attempts: 0 });
    expect(requeued.payload).toMatchObject({ accountId: again.id });

    h.svc.ship(paid!.svcOrderId, { trackNumber: "RECONNECT-1" });
    await h.settle();
    const done = await prisma.shopOrder.findUniqueOrThrow({
      where: { id: paid!.id },
      include: { shipments: true },
    });
    expect(["SHIPPED", "FULFILLED"]).toContain(done.state);
    expect(done.shipments.map((s) => s.trackNumber)).toContain("RECONNECT-1");
    expect(await prisma.job.count({ where: { state: "dead", shopDomain: h.shopDomain } })).toBe(0);
  });

  it("a key pasted over another account's keeps that account's orders apart, until it is back", async () => {
    const [paid] = await paidOrders(h, 1, "Chair");
    h.svc.clearFaults();
    const current = await prisma.svcAccount.findUniqueOrThrow({
      where: { shopDomain: h.shopDomain },
    });
    expect((await order(paid!.id)).svcAccountId).toBe(current.id);
    const firstKey = keyOf(h.simAccountId);

    h.svc.clock.advance(6 * MIN);
    const other = h.svc.createAccount({ balance: "10.00", callsPerSecond: 50 });
    const b = await connect(other.apiKey); // no disconnect first
    expect(b.id).toBe(current.id);
    const moved = await order(paid!.id);
    // Never asked about with the other account's token: on a row of its own account, flagged.
    expect(moved.svcAccountId).not.toBe(b.id);
    expect(moved.flag).toBe(ACCOUNT_GONE_FLAG);
    const archive = await prisma.svcAccount.findUniqueOrThrow({
      where: { id: moved.svcAccountId! },
    });
    expect(archive).toMatchObject({ openId: current.openId, shopDomain: null, apiKeyEnc: null });

    await disconnect(b.id);
    h.svc.clock.advance(6 * MIN);
    const back = await connect(firstKey);
    expect(await order(paid!.id)).toMatchObject({ svcAccountId: back.id, flag: null });
  });

  it("an authorization renewed on the same row brings back only the jobs that died of it", async () => {
    const acc = await prisma.svcAccount.findUniqueOrThrow({ where: { shopDomain: h.shopDomain } });
    const dead = async (lastError: string) => {
      const j = await enqueue(prisma, {
        kind: JOB.pay,
        payload: { accountId: acc.id },
        shopDomain: h.shopDomain,
        runAt: new Date(Date.now() + 3600_000), // not run by anything else in this file
      });
      await prisma.job.update({
        where: { id: j.id },
        data: { state: "dead", attempts: 10, lastError, finishedAt: new Date() },
      });
      return j.id;
    };
    const expired = await dead(
      "SvcReauthorizationRequiredError: token: the authorization has expired; the merchant must authorize again",
    );
    const other = await dead("SvcServerError: getBalance: HTTP 503");
    expect(await followAccount(prisma, { shop: h.shopDomain, accountId: acc.id })).toMatchObject({
      requeued: 1,
    });
    expect(await prisma.job.findUniqueOrThrow({ where: { id: expired } })).toMatchObject({
      state: "available",
      attempts: 0,
      finishedAt: null,
    });
    expect((await prisma.job.findUniqueOrThrow({ where: { id: other } })).state).toBe("dead");
  });
});
