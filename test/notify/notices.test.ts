/**
 * The merchant's notices and digests (app/notify/notices.server.ts) one rule at a time, on the
 * test database and a real SMTP server in this process (test/sim/mail): which orders are told
 * (failed, held long enough, flagged after payment; within 7 days; 500 of each a scan), in
 * which words; the account's conditions told when they start (an outage when it ends, too);
 * what a digest carries and records, when the next one is due, a failed send sent again as
 * the same message and given up after 8 tries; the links of the email. The flow over the
 * service simulator and the harness is in digest.test.ts.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { config } from "../../app/config.server";
import { prisma } from "../../app/db.server";
import { smtpMailer, type Mailer } from "../../app/notify/mailer.server";
import { detectNotices } from "../../app/notify/detect.server";
import {
  DIGEST_MAX_ATTEMPTS,
  digestLinks,
  kindsOn,
  mailHost,
  sendDigest,
} from "../../app/notify/digest.server";
import { notifyShop, serviceProbe, type Probe } from "../../app/notify/notices.server";
import { readUnsubscribeToken } from "../../app/notify/unsubscribe.server";
import { settingsSchema, updateSettings, type ShopSettings } from "../../app/settings.server";
import { closeSvcPools } from "../../app/svc/transport.server";
import { type MailSim, startMailSim } from "../sim/mail/server";
import { accountFixture, startServiceSim } from "../svc/sim-helpers";

const SHOP = "notices-unit.myshopify.com";
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let mail: MailSim;
beforeAll(async () => {
  mail = await startMailSim();
  await prisma.shop.create({ data: { domain: SHOP } });
});
afterAll(async () => {
  await mail?.close();
});

const settingsOf = (over: Record<string, unknown> = {}): ShopSettings =>
  settingsSchema.parse({
    notifyEmails: "owner@example.com, ops@example.com",
    notifyHeldAfterMinutes: 60,
    notifyDigestMinutes: 30,
    ...over,
  });

/** A probe that answers what the test says, counting its calls. */
function probeOf(answer: Probe) {
  const p = async () => {
    p.calls++;
    return answer;
  };
  p.calls = 0;
  return p;
}
const quiet = () => probeOf({ amount: "1000.00", outage: false });

async function reset() {
  await prisma.shopOrder.deleteMany({});
  await prisma.notice.deleteMany({});
  await prisma.noticeDigest.deleteMany({});
  await prisma.noticeCondition.deleteMany({});
  await prisma.svcAccount.deleteMany({ where: { shopDomain: SHOP } });
  await fetch(`${mail.url}/mails`, { method: "DELETE" });
  mail.refuse(null);
}

/** The shop's service account: connected (a key stored) or not, webhooks registered or not. */
async function account(over: Record<string, unknown> = {}) {
  return prisma.svcAccount.create({
    data: {
      shopDomain: SHOP,
      baseUrl: "http://svc.example.com",
      authMethod: "apiKey",
      apiKeyEnc: "stored",
      webhookRegisteredAt: new Date(),
      ...over,
    },
  });
}

let seq = 0;
async function order(data: Record<string, unknown>) {
  const n = ++seq;
  return prisma.shopOrder.create({
    data: {
      shopDomain: SHOP,
      shopifyOrderId: String(5000 + n),
      shopifyOrderName: `#${5000 + n}`,
      orderNumber: `notices-${n}`,
      ...data,
    },
  });
}

const notices = () =>
  prisma.notice.findMany({
    orderBy: { key: "asc" },
    select: { kind: true, key: true, text: true, orderId: true, digestId: true },
  });

describe("detectNotices: orders", () => {
  beforeEach(reset);

  it("tells of failed orders of the last 7 days, in plain words", async () => {
    const now = Date.now();
    const a = await order({
      state: "FAILED",
      reasonCode: "svc_refused",
      reasonMessage: "  Out of\n  stock (1602003) ",
      updatedAt: new Date(now - 7 * DAY),
    });
    const b = await order({
      state: "FAILED",
      shopifyOrderName: null,
      shopifyOrderId: "777",
      updatedAt: new Date(now - HOUR),
    });
    await order({ state: "FAILED", reasonMessage: "old", updatedAt: new Date(now - 7 * DAY - 1) });
    await order({ state: "PAID", reasonMessage: "fine", updatedAt: new Date(now) });
    const r = await detectNotices(prisma, SHOP, settingsOf(), quiet(), now);
    expect(r).toEqual({ created: 2 });
    expect(await notices()).toEqual(
      [
        {
          kind: "failures",
          key: `failed:${a.id}:svc_refused`,
          text: `${a.shopifyOrderName} failed: Out of stock (1602003)`,
          orderId: a.id,
          digestId: null,
        },
        {
          kind: "failures",
          key: `failed:${b.id}:`,
          text: "#777 failed: see its timeline",
          orderId: b.id,
          digestId: null,
        },
      ].sort((x, y) => (x.key < y.key ? -1 : 1)),
    );
    // Seen again: nothing new. A new reason is news.
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), now + MIN)).toEqual({
      created: 0,
    });
    await prisma.shopOrder.update({
      where: { id: b.id },
      data: { reasonCode: "address", reasonMessage: "Address refused" },
    });
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), now + 2 * MIN)).toEqual({
      created: 1,
    });
    expect((await notices()).map((n) => n.key)).toContain(`failed:${b.id}:address`);
  });

  it("shortens a long reason to 200 characters", async () => {
    const now = Date.now();
    const long = await order({ state: "FAILED", reasonMessage: "x".repeat(300) });
    const edge = await order({ state: "FAILED", reasonMessage: "y".repeat(200) });
    await detectNotices(prisma, SHOP, settingsOf(), quiet(), now);
    const text = async (id: string) =>
      (await prisma.notice.findFirstOrThrow({ where: { orderId: id } })).text;
    expect(await text(long.id)).toBe(`${long.shopifyOrderName} failed: ${"x".repeat(199)}…`);
    expect(await text(edge.id)).toBe(`${edge.shopifyOrderName} failed: ${"y".repeat(200)}`);
  });

  it("tells of a held order once held for the set time, not of an outage or a review wait", async () => {
    const now = Date.now();
    const held = await order({
      state: "HELD",
      reasonCode: "unmatched",
      reasonMessage: "2 lines have no catalog match",
      updatedAt: new Date(now - 60 * MIN),
    });
    const noReason = await order({
      state: "HELD",
      reasonCode: "merchant_hold",
      updatedAt: new Date(now - 2 * HOUR),
    });
    await order({ state: "HELD", reasonCode: "unmatched", updatedAt: new Date(now - 59 * MIN) });
    await order({ state: "HELD", reasonCode: "unmatched", updatedAt: new Date(now - 8 * DAY) });
    await order({
      state: "HELD",
      reasonCode: "service_unavailable",
      updatedAt: new Date(now - 2 * HOUR),
    });
    await order({
      state: "HELD",
      reasonCode: "review_window",
      updatedAt: new Date(now - 2 * HOUR),
    });
    // Not connected: the held-for-the-service order is the outage's, told as the account's.
    const r = await detectNotices(prisma, SHOP, settingsOf({ notifyOutage: false }), quiet(), now);
    expect(r).toEqual({ created: 2 });
    expect(await notices()).toEqual(
      [
        {
          kind: "failures",
          key: `held:${held.id}:unmatched`,
          text: `${held.shopifyOrderName} is held: 2 lines have no catalog match`,
          orderId: held.id,
          digestId: null,
        },
        {
          kind: "failures",
          key: `held:${noReason.id}:merchant_hold`,
          text: `${noReason.shopifyOrderName} is held: see its timeline`,
          orderId: noReason.id,
          digestId: null,
        },
      ].sort((x, y) => (x.key < y.key ? -1 : 1)),
    );
    // With no wait set, a hold is told at once.
    await reset();
    const fresh = await order({ state: "HELD", reasonCode: "unmatched", updatedAt: new Date(now) });
    await detectNotices(prisma, SHOP, settingsOf({ notifyHeldAfterMinutes: 0 }), quiet(), now);
    expect((await notices()).map((n) => n.key)).toEqual([`held:${fresh.id}:unmatched`]);
  });

  it("tells of a flag after payment in words, once per flag", async () => {
    const now = Date.now();
    const o = await order({
      state: "PAID",
      flag: "cancelled_after_payment",
      updatedAt: new Date(now - DAY),
    });
    const odd = await order({ state: "SHIPPED", flag: "something_new" });
    await order({ state: "PAID", flag: "address_changed", updatedAt: new Date(now - 8 * DAY) });
    const r = await detectNotices(prisma, SHOP, settingsOf(), quiet(), now);
    expect(r).toEqual({ created: 2 });
    const hash = (f: string) => createHash("sha256").update(f).digest("hex").slice(0, 16);
    expect(await notices()).toEqual(
      [
        {
          kind: "failures",
          key: `flag:${o.id}:${hash("cancelled_after_payment")}`,
          text: `${o.shopifyOrderName}: Cancelled after the service order was paid: it will still ship. Open a dispute or contact the service.`,
          orderId: o.id,
          digestId: null,
        },
        {
          kind: "failures",
          key: `flag:${odd.id}:${hash("something_new")}`,
          text: `${odd.shopifyOrderName}: Something after payment needs you: see the timeline.`,
          orderId: odd.id,
          digestId: null,
        },
      ].sort((x, y) => (x.key < y.key ? -1 : 1)),
    );
    // Another flag on the same order is news.
    await prisma.shopOrder.update({ where: { id: o.id }, data: { flag: "fulfilment_conflict" } });
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), now)).toEqual({ created: 1 });
  });

  it("tells nothing of orders when failures are turned off", async () => {
    const now = Date.now();
    await order({ state: "FAILED" });
    await order({ state: "HELD", updatedAt: new Date(now - DAY) });
    await order({ state: "PAID", flag: "cancelled_after_payment" });
    expect(
      await detectNotices(prisma, SHOP, settingsOf({ notifyFailures: false }), quiet(), now),
    ).toEqual({ created: 0 });
    expect(await prisma.notice.count()).toBe(0);
  });

  it("looks at the 500 most recently changed orders of each sort a scan", async () => {
    const now = Date.now();
    const rows = (state: string, extra: Record<string, unknown>) =>
      Array.from({ length: 501 }, (_, i) => ({
        shopDomain: SHOP,
        shopifyOrderId: `${state}-${i}`,
        orderNumber: `notices-bulk-${state}-${i}`,
        state,
        // The first is the oldest: 6 days ago; then one second newer each.
        updatedAt: new Date(now - 6 * DAY + i * 1000),
        ...extra,
      }));
    await prisma.shopOrder.createMany({
      data: [
        ...rows("FAILED", {}),
        ...rows("HELD", { reasonCode: "unmatched" }),
        ...rows("PAID", { flag: "address_changed" }),
      ],
    });
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), now)).toEqual({
      created: 1500,
    });
    const told = new Set(
      (await prisma.notice.findMany({ select: { orderId: true } })).map((n) => n.orderId),
    );
    const oldest = await prisma.shopOrder.findMany({
      where: { shopifyOrderId: { in: ["FAILED-0", "HELD-0", "PAID-0"] } },
    });
    expect(oldest).toHaveLength(3);
    for (const o of oldest) expect(told.has(o.id), o.shopifyOrderId).toBe(false);
  });
});

describe("detectNotices: the account's conditions", () => {
  beforeEach(reset);

  it("tells of an outage when it starts and when it ends, once each", async () => {
    await account();
    const t0 = Date.parse("2026-03-04T05:06:07.000Z");
    const down = probeOf({ amount: null, outage: true });
    expect(await detectNotices(prisma, SHOP, settingsOf(), down, t0)).toEqual({ created: 1 });
    expect(down.calls).toBe(1);
    expect(await notices()).toEqual([
      {
        kind: "outage",
        key: "outage:2026-03-04T05:06:07.000Z",
        text: "The service is not answering. Orders go on by themselves when it answers again.",
        orderId: null,
        digestId: null,
      },
    ]);
    const cond = await prisma.noticeCondition.findMany();
    expect(cond).toEqual([{ shopDomain: SHOP, kind: "outage", since: new Date(t0) }]);
    // Still down: nothing new.
    expect(await detectNotices(prisma, SHOP, settingsOf(), down, t0 + MIN)).toEqual({
      created: 0,
    });
    // Up again: the end is told, the condition closed.
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), t0 + 10 * MIN)).toEqual({
      created: 1,
    });
    const over = (await notices()).find((n) => n.key.startsWith("outage-over:"));
    expect(over).toEqual({
      kind: "outage",
      key: "outage-over:2026-03-04T05:06:07.000Z",
      text: "The service answers again (it did not from 4 Mar 2026, 05:06 UTC); waiting orders go on.",
      orderId: null,
      digestId: null,
    });
    expect(await prisma.noticeCondition.count()).toBe(0);
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), t0 + 20 * MIN)).toEqual({
      created: 0,
    });
  });

  it("counts the orders waiting for the service in the outage's words, even unconnected", async () => {
    const t0 = Date.now();
    await order({ state: "HELD", reasonCode: "service_unavailable" });
    await order({ state: "HELD", reasonCode: "service_unavailable" });
    const probe = quiet();
    expect(await detectNotices(prisma, SHOP, settingsOf(), probe, t0)).toEqual({ created: 1 });
    expect(probe.calls).toBe(0);
    expect((await notices())[0]!.text).toBe(
      "The service is not answering: 2 order(s) wait for it. Orders go on by themselves when it answers again.",
    );
  });

  it("records an outage turned off without telling it, start or end", async () => {
    await account();
    const t0 = Date.now();
    const off = settingsOf({ notifyOutage: false });
    const down = probeOf({ amount: null, outage: true });
    expect(await detectNotices(prisma, SHOP, off, down, t0)).toEqual({ created: 0 });
    expect(await prisma.noticeCondition.count()).toBe(1);
    expect(await detectNotices(prisma, SHOP, off, quiet(), t0 + MIN)).toEqual({ created: 0 });
    expect(await prisma.noticeCondition.count()).toBe(0);
    expect(await prisma.notice.count()).toBe(0);
  });

  it("tells of a balance under the threshold once while it lasts, not at the threshold", async () => {
    await account();
    const t0 = Date.parse("2026-03-04T05:06:07.000Z");
    const at = settingsOf({ lowBalanceUsd: "42.5" });
    expect(
      await detectNotices(prisma, SHOP, at, probeOf({ amount: "42.50", outage: false }), t0),
    ).toEqual({ created: 0 });
    const low = probeOf({ amount: "42.49", outage: false });
    expect(await detectNotices(prisma, SHOP, at, low, t0)).toEqual({ created: 1 });
    expect(await notices()).toEqual([
      {
        kind: "low_balance",
        key: "low_balance:2026-03-04T05:06:07.000Z",
        text: "The balance (42.49 USD) is below your threshold of 42.5 USD. Top up at the service.",
        orderId: null,
        digestId: null,
      },
    ]);
    expect(await detectNotices(prisma, SHOP, at, low, t0 + HOUR)).toEqual({ created: 0 });
    // Without a threshold, a low balance is no news (nothing waits for it).
    expect(await detectNotices(prisma, SHOP, settingsOf(), low, t0 + 2 * HOUR)).toEqual({
      created: 0,
    });
    expect(await prisma.noticeCondition.count()).toBe(0);
  });

  it("takes the balance last seen when the service is not asked", async () => {
    // Not connected (no key stored): the probe is not asked; the known balance is used.
    await account({ apiKeyEnc: null, knownBalance: "10.00" });
    const probe = quiet();
    const r = await detectNotices(
      prisma,
      SHOP,
      settingsOf({ lowBalanceUsd: "20" }),
      probe,
      Date.now(),
    );
    expect(r).toEqual({ created: 1 });
    expect(probe.calls).toBe(0);
    expect((await notices())[0]!.text).toBe(
      "The balance (10.00 USD) is below your threshold of 20 USD. Top up at the service.",
    );
  });

  it("tells when the balance does not cover the orders waiting for payment", async () => {
    await account({ apiKeyEnc: null, knownBalance: "5.00" });
    await order({ state: "CREATED", amount: "7.25" });
    await order({ state: "CREATED", amount: "5.25" });
    const r = await detectNotices(prisma, SHOP, settingsOf(), quiet(), Date.now());
    expect(r).toEqual({ created: 1 });
    expect(await notices()).toMatchObject([
      {
        kind: "low_balance",
        text: "The balance (5.00 USD) does not cover the orders waiting for payment (12.50 USD). Top up at the service: they are paid once it does.",
      },
    ]);
  });

  it("tells of orders held for the balance when the balance is unknown", async () => {
    await order({ state: "HELD", reasonCode: "short_balance", amount: "3.10" });
    const r = await detectNotices(prisma, SHOP, settingsOf(), quiet(), Date.now());
    expect(r).toEqual({ created: 1 });
    expect((await notices())[0]!.text).toBe(
      "The balance does not cover the orders waiting for payment (3.10 USD). Top up at the service: they are paid once it does.",
    );
    // Turned off: recorded, not told.
    await reset();
    await order({ state: "HELD", reasonCode: "short_balance", amount: "3.10" });
    const off = settingsOf({ notifyLowBalance: false });
    expect(await detectNotices(prisma, SHOP, off, quiet(), Date.now())).toEqual({ created: 0 });
    expect(await prisma.noticeCondition.findMany()).toMatchObject([{ kind: "low_balance" }]);
  });

  it("tells of webhooks not registered, then missing deliveries; nothing when they end", async () => {
    const a = await account({ webhookRegisteredAt: null });
    const t0 = Date.now();
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), t0)).toEqual({ created: 1 });
    expect(await notices()).toMatchObject([
      {
        kind: "webhooks",
        key: `webhooks:${new Date(t0).toISOString()}`,
        text: "The service's webhooks are not registered: tracking arrives only through the app's checks, later. Register them in the app's settings.",
        orderId: null,
      },
    ]);
    // Registered: the condition ends without an email.
    await prisma.svcAccount.update({
      where: { id: a.id },
      data: { webhookRegisteredAt: new Date() },
    });
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), t0 + MIN)).toEqual({
      created: 0,
    });
    expect(await prisma.noticeCondition.count()).toBe(0);
    // Deliveries go missing (3 gaps): told again, in those words.
    await prisma.svcAccount.update({ where: { id: a.id }, data: { webhookGaps: 3 } });
    expect(await detectNotices(prisma, SHOP, settingsOf(), quiet(), t0 + 2 * MIN)).toEqual({
      created: 1,
    });
    expect((await notices()).map((n) => n.text)).toContain(
      "The service's webhooks are missing deliveries; the app registers them again by itself.",
    );
    // Turned off: nothing told.
    await reset();
    await account({ webhookRegisteredAt: null });
    const off = settingsOf({ notifyWebhooks: false });
    expect(await detectNotices(prisma, SHOP, off, quiet(), t0)).toEqual({ created: 0 });
  });

  it("asks the service for the balance: an outage when it does not answer", async () => {
    const sim = await startServiceSim({ catalogSize: 2 });
    try {
      const fx = await accountFixture(sim, { balance: "321.50", callsPerSecond: 50 });
      await prisma.svcAccount.update({ where: { id: fx.accountId }, data: { shopDomain: SHOP } });
      expect(await serviceProbe(prisma, SHOP)).toEqual({ amount: "321.50", outage: false });
      sim.setFaults({ rate5xx: 1 });
      expect(await serviceProbe(prisma, SHOP)).toEqual({ amount: null, outage: true });
    } finally {
      await closeSvcPools();
      await sim.close();
    }
  });
});

describe("sendDigest", () => {
  beforeEach(reset);

  const mailer = () => smtpMailer(mail.smtpUrl);
  async function waiting(n: number, kind = "failures") {
    const made = [];
    for (let i = 0; i < n; i++) {
      const o = await order({ state: "FAILED" });
      made.push(
        await prisma.notice.create({
          data: {
            shopDomain: SHOP,
            kind,
            key: `failed:${o.id}:`,
            text: `${o.shopifyOrderName} failed: Refused`,
            orderId: o.id,
            createdAt: new Date(Date.now() - (n - i) * 1000),
          },
        }),
      );
    }
    return made;
  }

  it("sends nothing without addresses or a mail server", async () => {
    await waiting(1);
    expect(await sendDigest(prisma, SHOP, settingsOf({ notifyEmails: "" }), mailer())).toEqual({
      skipped: "no addresses",
    });
    expect(await sendDigest(prisma, SHOP, settingsOf(), null)).toEqual({
      skipped: "email is not set up on this server (SMTP_URL)",
    });
    expect(await prisma.noticeDigest.count()).toBe(0);
    expect(mail.mails()).toHaveLength(0);
  });

  it("sends the notices waiting as one email, and records it", async () => {
    const made = await waiting(2);
    const now = Date.now();
    const out = await sendDigest(prisma, SHOP, settingsOf(), mailer(), now);
    const d = await prisma.noticeDigest.findFirstOrThrow();
    expect(d.id).toMatch(/^[0-9a-f]{24}$/);
    expect(d.id).toBe(
      createHash("sha256").update(`${SHOP}:${now}:${made[0]!.id}`).digest("hex").slice(0, 24),
    );
    expect(out).toEqual({ sent: `<digest-${d.id}@app.test>`, notices: 2 });
    expect(d).toMatchObject({
      shopDomain: SHOP,
      messageId: `<digest-${d.id}@app.test>`,
      recipients: "owner@example.com, ops@example.com",
      subject: "2 orders failed · notices-unit",
      notices: 2,
      createdAt: new Date(now),
      attempts: 1,
      lastError: null,
    });
    expect(d.sentAt).not.toBeNull();
    expect((await notices()).map((n) => n.digestId)).toEqual([d.id, d.id]);
    const got = mail.mails();
    expect(got).toHaveLength(1);
    expect(got[0]!.messageId).toBe(d.messageId);
    expect(got[0]!.from).toContain("no-reply@app.test");
    expect(got[0]!.to.sort()).toEqual(["ops@example.com", "owner@example.com"]);
    expect(got[0]!.subject).toBe("2 orders failed · notices-unit");
    expect(got[0]!.text).toContain("- 2 orders failed: Refused");
    expect(got[0]!.html).toContain("2 orders failed");
    expect(got[0]!.headers["auto-submitted"]).toBe("auto-generated");
    expect(got[0]!.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
    const unsub = got[0]!.headers["list-unsubscribe"]!.match(/^<(.+)>$/)?.[1];
    expect(unsub).toBeDefined();
    const url = new URL(unsub!);
    expect(url.origin + url.pathname).toBe("https://app.test/notifications/unsubscribe");
    expect(readUnsubscribeToken(url.searchParams.get("t")!)).toEqual({ shop: SHOP, kind: "all" });
    // Sent: nothing more until new notices come.
    expect(await sendDigest(prisma, SHOP, settingsOf(), mailer(), now + HOUR)).toEqual({
      skipped: "nothing due",
    });
    expect(mail.mails()).toHaveLength(1);
  });

  it("drops the notices of a kind turned off, and sends the others", async () => {
    await waiting(1);
    const outage = await prisma.notice.create({
      data: {
        shopDomain: SHOP,
        kind: "outage",
        key: "outage:x",
        text: "The service is not answering.",
      },
    });
    const out = await sendDigest(prisma, SHOP, settingsOf({ notifyFailures: false }), mailer());
    expect(out).toMatchObject({ notices: 1 });
    const all = await prisma.notice.findMany();
    const d = await prisma.noticeDigest.findFirstOrThrow();
    expect(all.find((n) => n.id === outage.id)!.digestId).toBe(d.id);
    expect(all.find((n) => n.kind === "failures")!.digestId).toBe("dropped");
    expect(mail.mails()[0]!.subject).toBe("The service is not answering · notices-unit");
    // Everything off: dropped, nothing sent.
    await waiting(1);
    const none = settingsOf({
      notifyFailures: false,
      notifyLowBalance: false,
      notifyOutage: false,
      notifyWebhooks: false,
      notifyDisputes: false,
    });
    expect(await sendDigest(prisma, SHOP, none, mailer(), Date.now() + DAY)).toEqual({
      skipped: "nothing due",
    });
    expect(await prisma.notice.count({ where: { digestId: null } })).toBe(0);
    expect(mail.mails()).toHaveLength(1);
  });

  it("sends the next digest only once its minutes have passed since the last", async () => {
    await waiting(1);
    const t0 = Date.now();
    await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0);
    await waiting(1);
    expect(await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0 + 30 * MIN - 1)).toEqual({
      skipped: "nothing due",
    });
    expect(await prisma.notice.count({ where: { digestId: null } })).toBe(1);
    const next = await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0 + 30 * MIN);
    expect(next).toMatchObject({ notices: 1 });
    expect(mail.mails()).toHaveLength(2);
    expect(mail.mails()[1]!.messageId).not.toBe(mail.mails()[0]!.messageId);
  });

  it("sends a refused digest again as the same message, and gives it up after 8 tries", async () => {
    expect(DIGEST_MAX_ATTEMPTS).toBe(8);
    await waiting(2);
    const t0 = Date.now();
    mail.refuse(451);
    const first = await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0);
    expect(first).toMatchObject({ attempts: 1 });
    expect((first as { failed: string }).failed).toMatch(/^SMTP 127\.0\.0\.1: 451/);
    const d = await prisma.noticeDigest.findFirstOrThrow();
    expect(d).toMatchObject({ attempts: 1, sentAt: null });
    expect(d.lastError).toBe((first as { failed: string }).failed);
    // Notices that come meanwhile wait for the next digest.
    await waiting(1);
    for (let i = 2; i <= DIGEST_MAX_ATTEMPTS; i++) {
      const again = await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0 + i * MIN);
      expect(again).toMatchObject({ attempts: i });
    }
    expect(await prisma.noticeDigest.count()).toBe(1);
    // Given up: the next digest carries what came since, once its minutes have passed.
    mail.refuse(null);
    expect(await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0 + 10 * MIN)).toEqual({
      skipped: "nothing due",
    });
    const next = await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0 + 31 * MIN);
    expect(next).toMatchObject({ notices: 1 });
    const digests = await prisma.noticeDigest.findMany({ orderBy: { createdAt: "asc" } });
    expect(digests.map((x) => [x.attempts, x.sentAt !== null])).toEqual([
      [8, false],
      [1, true],
    ]);
    expect(mail.mails()).toHaveLength(1);
  });

  it("sends a digest that failed once, when the server takes it, and forgets the error", async () => {
    await waiting(1);
    const t0 = Date.now();
    mail.refuse(550);
    await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0);
    mail.refuse(null);
    // The same digest, whatever the minutes: it is not a new one.
    const again = await sendDigest(prisma, SHOP, settingsOf(), mailer(), t0 + MIN);
    expect(again).toMatchObject({ notices: 1 });
    const d = await prisma.noticeDigest.findFirstOrThrow();
    expect(d).toMatchObject({ attempts: 2, lastError: null });
    expect(mail.mails()[0]!.messageId).toBe(d.messageId);
  });

  it("keeps at most 500 characters of a mailer's error, whatever it throws", async () => {
    await waiting(1);
    const long: Mailer = {
      send: async () => {
        throw new Error(`relay refused: ${"r".repeat(600)}`);
      },
    };
    const out = await sendDigest(prisma, SHOP, settingsOf(), long);
    expect(out).toMatchObject({ attempts: 1 });
    let d = await prisma.noticeDigest.findFirstOrThrow();
    expect(d.lastError).toBe(`relay refused: ${"r".repeat(600)}`.slice(0, 500));
    const bare: Mailer = {
      send: async () => {
        throw "connection reset";
      },
    };
    expect(await sendDigest(prisma, SHOP, settingsOf(), bare)).toEqual({
      failed: "connection reset",
      attempts: 2,
    });
    d = await prisma.noticeDigest.findFirstOrThrow();
    expect(d.lastError).toBe("connection reset");
  });

  it("two workers at once make one digest", async () => {
    await waiting(3);
    const now = Date.now();
    const outs = await Promise.all([
      sendDigest(prisma, SHOP, settingsOf(), mailer(), now),
      sendDigest(prisma, SHOP, settingsOf(), mailer(), now),
    ]);
    // One digest; whoever sends it sends the same message (a second send is a resend).
    expect(await prisma.noticeDigest.count()).toBe(1);
    const d = await prisma.noticeDigest.findFirstOrThrow();
    expect(d).toMatchObject({ notices: 3 });
    expect(outs.some((o) => "sent" in o && o.sent === d.messageId)).toBe(true);
    expect(mail.mails().length).toBeGreaterThanOrEqual(1);
    expect(new Set(mail.mails().map((m) => m.messageId))).toEqual(new Set([d.messageId]));
  });
});

describe("the email's links and host", () => {
  it("go to the app in the shop's admin, or to the app itself in the sandbox", () => {
    expect(mailHost()).toBe("app.test");
    const l = digestLinks(SHOP);
    expect(l.attention).toBe(`https://${SHOP}/admin/apps/test-api-key/app/orders?view=attention`);
    expect(l.dashboard).toBe(`https://${SHOP}/admin/apps/test-api-key/app`);
    expect(l.order("a/b c")).toBe(`https://${SHOP}/admin/apps/test-api-key/app/orders/a%2Fb%20c`);
    const unsub = new URL(l.unsubscribe("outage"));
    expect(readUnsubscribeToken(unsub.searchParams.get("t")!)).toEqual({
      shop: SHOP,
      kind: "outage",
    });
    const c = config as { SANDBOX: boolean; SHOPIFY_APP_URL: string; SHOPIFY_API_KEY: string };
    const saved = { ...c };
    try {
      c.SANDBOX = true;
      c.SHOPIFY_APP_URL = "https://sandbox.test/";
      const s = digestLinks(SHOP);
      expect(s.attention).toBe("https://sandbox.test/app/orders?view=attention");
      expect(s.dashboard).toBe("https://sandbox.test/app");
      expect(s.order("x1")).toBe("https://sandbox.test/app/orders/x1");
      c.SANDBOX = false;
      c.SHOPIFY_API_KEY = "key/with space";
      expect(digestLinks(SHOP).dashboard).toBe(`https://${SHOP}/admin/apps/key%2Fwith%20space/app`);
    } finally {
      Object.assign(c, saved);
    }
  });

  it("kinds on: those the settings turn on", () => {
    expect(kindsOn(settingsOf())).toEqual([
      "failures",
      "low_balance",
      "outage",
      "webhooks",
      "disputes",
    ]);
    expect(kindsOn(settingsOf({ notifyLowBalance: false, notifyDisputes: false }))).toEqual([
      "failures",
      "outage",
      "webhooks",
    ]);
  });
});

describe("notifyShop", () => {
  beforeEach(reset);

  it("records what is new and sends the digest; without addresses it records nothing", async () => {
    await order({ state: "FAILED", reasonMessage: "Refused" });
    await updateSettings(prisma, SHOP, { notifyEmails: "" });
    expect(await notifyShop(prisma, SHOP, smtpMailer(mail.smtpUrl), quiet())).toEqual({
      skipped: "no addresses",
    });
    expect(await prisma.notice.count()).toBe(0);
    await updateSettings(prisma, SHOP, { notifyEmails: "owner@example.com" });
    const now = Date.now();
    const out = await notifyShop(prisma, SHOP, smtpMailer(mail.smtpUrl), quiet(), now);
    const d = await prisma.noticeDigest.findFirstOrThrow();
    expect(out).toEqual({ created: 1, sent: d.messageId, notices: 1 });
    expect(d.createdAt).toEqual(new Date(now));
    expect(mail.mails().map((m) => m.to)).toEqual([["owner@example.com"]]);
  });
});
