/**
 * Notification emails (issue 15) over real SMTP: a real client (nodemailer) to a real SMTP
 * server in this process (test/sim/mail). Many failures make one digest, not one email each;
 * the next digest waits its minutes; a held order is told only once held long enough; an
 * outage is told when it starts and when it ends; a low balance once while it lasts; a kind
 * turned off (here or by the email's link) is not told; a refused send is sent again as the
 * same message; the SMTP password never reaches an error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { enqueue } from "../../app/jobs/enqueue.server";
import { Worker } from "../../app/worker/worker.server";
import { NOTIFY_JOB, notifyHandlers } from "../../app/notify/jobs.server";
import { smtpMailer } from "../../app/notify/mailer.server";
import { notifyShop, type Probe } from "../../app/notify/notices.server";
import { balanceOf } from "../../app/svc-account/account.server";
import { action, loader } from "../../app/routes/notifications.unsubscribe";
import { getSettings, settingsSchema, updateSettings } from "../../app/settings.server";
import { readUnsubscribeToken, unsubscribeToken } from "../../app/notify/unsubscribe.server";
import { callRoute } from "../helpers/remix";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { type MailSim, startMailSim } from "../sim/mail/server";

const MIN = 60_000;
let h: Harness;
let mail: MailSim;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "notify-digest.myshopify.com", balance: "42.00" });
  mail = await startMailSim();
  await prisma.svcAccount.update({
    where: { id: h.accountId },
    data: { webhookRegisteredAt: new Date() },
  });
});
afterAll(async () => {
  await mail?.close();
  await h?.close();
});

const probe = async (): Promise<Probe> => {
  const b = await balanceOf(prisma, h.shopDomain);
  return { amount: b.amount, outage: b.outage };
};
const run = (now: number) => notifyShop(prisma, h.shopDomain, smtpMailer(mail.smtpUrl), probe, now);

let seq = 0;
async function orders(n: number, data: Record<string, unknown>) {
  for (let i = 0; i < n; i++) {
    const id = String(++seq);
    await prisma.shopOrder.create({
      data: {
        shopDomain: h.shopDomain,
        shopifyOrderId: id,
        shopifyOrderName: `#${1000 + seq}`,
        orderNumber: `notify-${id}`,
        ...data,
      },
    });
  }
}

async function reset(settings: Record<string, unknown> = {}) {
  await prisma.shopOrder.deleteMany({ where: { shopDomain: h.shopDomain } });
  await prisma.notice.deleteMany({ where: { shopDomain: h.shopDomain } });
  await prisma.noticeDigest.deleteMany({ where: { shopDomain: h.shopDomain } });
  await prisma.noticeCondition.deleteMany({ where: { shopDomain: h.shopDomain } });
  await fetch(`${mail.url}/mails`, { method: "DELETE" });
  h.svc.clearFaults();
  const r = await updateSettings(prisma, h.shopDomain, {
    notifyEmails: "Owner@Example.com, ops@example.com",
    notifyFailures: true,
    notifyLowBalance: true,
    notifyOutage: true,
    notifyWebhooks: true,
    notifyHeldAfterMinutes: 60,
    notifyDigestMinutes: 30,
    lowBalanceUsd: "",
    ...settings,
  });
  expect(r.ok).toBe(true);
}

describe("notification emails", () => {
  beforeEach(() => reset());

  it("sends one digest for 40 failed orders, and the next only after its minutes", async () => {
    const t0 = Date.now();
    await orders(40, {
      state: "FAILED",
      reasonCode: "svc_refused",
      reasonMessage: "Out of stock (1602003)",
    });
    const first = await run(t0);
    expect(first).toMatchObject({ created: 40, notices: 40 });
    let got = mail.mails();
    expect(got).toHaveLength(1);
    expect(got[0]!.to.sort()).toEqual(["ops@example.com", "owner@example.com"]);
    expect(got[0]!.subject).toBe("40 orders failed · notify-digest");
    expect(got[0]!.text).toContain("Orders that need you (40)");
    expect(got[0]!.text).toContain("- 40 orders failed: Out of stock (1602003)");
    expect(got[0]!.text).toContain("    and 20 more:");
    expect(got[0]!.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");

    // The same failures again: nothing new, no email.
    expect(await run(t0 + MIN)).toMatchObject({ created: 0, skipped: "nothing due" });
    // Five more within the 30 minutes: kept for the next digest.
    await orders(5, {
      state: "FAILED",
      reasonCode: "svc_refused",
      reasonMessage: "Address refused",
    });
    expect(await run(t0 + 2 * MIN)).toMatchObject({ created: 5, skipped: "nothing due" });
    expect(mail.mails()).toHaveLength(1);
    const second = await run(t0 + 31 * MIN);
    expect(second).toMatchObject({ notices: 5 });
    got = mail.mails();
    expect(got).toHaveLength(2);
    expect(got[1]!.subject).toBe("5 orders failed · notify-digest");
    expect(got[1]!.messageId).not.toBe(got[0]!.messageId);
  });

  it("tells of a held order only once it has been held for the set time", async () => {
    const t0 = Date.now();
    await orders(1, {
      state: "HELD",
      reasonCode: "unmatched",
      reasonMessage: "2 lines have no catalog match",
    });
    expect(await run(t0)).toMatchObject({ created: 0 });
    expect(mail.mails()).toHaveLength(0);
    const later = await run(t0 + 61 * MIN);
    expect(later).toMatchObject({ created: 1, notices: 1 });
    expect(mail.mails()[0]!.subject).toBe("1 order held · notify-digest");
    expect(mail.mails()[0]!.text).toContain("- 1 order held: 2 lines have no catalog match");
  });

  it("tells of an outage when it starts and when it ends, once each", async () => {
    const t0 = Date.now();
    h.svc.setFaults({ rate5xx: 1 });
    await run(t0);
    await run(t0 + MIN); // still down: told once
    expect(mail.mails()).toHaveLength(1);
    expect(mail.mails()[0]!.subject).toBe("The service is not answering · notify-digest");
    h.svc.clearFaults();
    await run(t0 + 2 * MIN); // up again: recorded, waits for the digest's minutes
    expect(mail.mails()).toHaveLength(1);
    await run(t0 + 40 * MIN);
    expect(mail.mails()).toHaveLength(2);
    expect(mail.mails()[1]!.subject).toBe("The service answers again · notify-digest");
    const notices = await prisma.notice.findMany({ where: { shopDomain: h.shopDomain } });
    expect(notices.map((n) => n.key.split(":")[0]).sort()).toEqual(["outage", "outage-over"]);
  });

  it("tells of a balance under the threshold once while it lasts", async () => {
    await reset({ lowBalanceUsd: "100" });
    const t0 = Date.now();
    await run(t0);
    await run(t0 + 40 * MIN);
    const got = mail.mails();
    expect(got).toHaveLength(1);
    expect(got[0]!.subject).toBe("Balance low · notify-digest");
    expect(got[0]!.text).toContain("The balance (42.00 USD) is below your threshold of 100 USD");
  });

  it("does not tell of a kind turned off, nor send to nobody", async () => {
    await reset({ notifyFailures: false });
    await orders(3, { state: "FAILED", reasonMessage: "Refused" });
    expect(await run(Date.now())).toMatchObject({ created: 0, skipped: "nothing due" });
    await reset({ notifyEmails: "" });
    await orders(3, { state: "FAILED", reasonMessage: "Refused" });
    expect(await run(Date.now())).toEqual({ skipped: "no addresses" });
    expect(mail.mails()).toHaveLength(0);
    expect(await prisma.notice.count({ where: { shopDomain: h.shopDomain } })).toBe(0);
  });

  it("sends a refused digest again as the same message, once the server takes it", async () => {
    const t0 = Date.now();
    await orders(2, { state: "FAILED", reasonMessage: "Refused" });
    mail.refuse(451);
    const failed = await run(t0);
    expect(failed).toMatchObject({ attempts: 1 });
    expect((failed as { failed: string }).failed).toMatch(/^SMTP 127\.0\.0\.1: 451/);
    expect(mail.mails()).toHaveLength(0);
    mail.refuse(null);
    // Failures that came meanwhile wait for the next digest: this one is sent as it was.
    await orders(1, { state: "FAILED", reasonMessage: "Refused" });
    const again = await run(t0 + MIN);
    expect(again).toMatchObject({ notices: 2 });
    const digests = await prisma.noticeDigest.findMany({ where: { shopDomain: h.shopDomain } });
    expect(digests).toHaveLength(1);
    expect(digests[0]!.attempts).toBe(2);
    expect(mail.mails()).toHaveLength(1);
    expect(mail.mails()[0]!.messageId).toBe(digests[0]!.messageId);
  });

  it("never puts the SMTP password in an error", async () => {
    const locked = await startMailSim({ user: "mailer", pass: "s3cret-Pa55" });
    try {
      const wrong = locked.smtpUrl.replace("s3cret-Pa55", "wrong-Pa55word");
      await orders(1, { state: "FAILED", reasonMessage: "Refused" });
      const out = await notifyShop(prisma, h.shopDomain, smtpMailer(wrong), probe, Date.now());
      const message = (out as { failed: string }).failed;
      expect(message).toMatch(/535/);
      expect(message).not.toContain("wrong-Pa55word");
      expect(message).not.toContain("mailer");
      expect(locked.mails()).toHaveLength(0);
      // With the right password it goes.
      const ok = await notifyShop(
        prisma,
        h.shopDomain,
        smtpMailer(locked.smtpUrl),
        probe,
        Date.now(),
      );
      expect(ok).toMatchObject({ notices: 1 });
      expect(locked.mails()).toHaveLength(1);
    } finally {
      await locked.close();
    }
  });

  it("turns a kind off by the email's link (asking first), and refuses a forged link", async () => {
    await orders(1, { state: "FAILED", reasonMessage: "Refused" });
    await run(Date.now());
    const text = mail.mails()[0]!.text;
    const link = text.match(/Stop emails about “Orders that failed or stay held”: (\S+)/)?.[1];
    expect(link).toBeDefined();
    const url = new URL(link!);
    expect(url.pathname).toBe("/notifications/unsubscribe");

    // Opening the link changes nothing (mail scanners open links).
    const shown = await callRoute(loader, new Request(url));
    expect(shown.status).toBe(200);
    expect((await getSettings(prisma, h.shopDomain)).notifyFailures).toBe(true);
    // The button, or a mail client's one-click POST.
    const done = await callRoute(
      action,
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      }),
    );
    expect(done.status).toBe(200);
    const s = await getSettings(prisma, h.shopDomain);
    expect(s.notifyFailures).toBe(false);
    expect(s.notifyOutage).toBe(true);

    // A token for another shop, signed with another secret, or altered: refused, nothing changes.
    const other = unsubscribeToken(h.shopDomain, "all", "not-the-app-secret");
    const [payload] = unsubscribeToken(h.shopDomain, "all").split(".");
    const tampered = `${Buffer.from(JSON.stringify({ s: "other.myshopify.com", k: "all" })).toString("base64url")}.${unsubscribeToken(h.shopDomain, "all").split(".")[1]}`;
    for (const t of [other, tampered, `${payload}.`, "garbage"]) {
      expect(readUnsubscribeToken(t)).toBeNull();
      const res = await callRoute(
        action,
        new Request(`${url.origin}/notifications/unsubscribe?t=${encodeURIComponent(t)}`, {
          method: "POST",
        }),
      );
      expect(res.status).toBe(400);
    }
    expect((await getSettings(prisma, h.shopDomain)).notifyOutage).toBe(true);
  });
});

describe("the notification jobs", () => {
  beforeEach(() => reset());

  it("tells once that the webhooks are not registered, and nothing once they are", async () => {
    const t0 = Date.now();
    await prisma.svcAccount.update({
      where: { id: h.accountId },
      data: { webhookRegisteredAt: null },
    });
    try {
      await run(t0);
      await run(t0 + 40 * MIN);
      expect(mail.mails()).toHaveLength(1);
      expect(mail.mails()[0]!.subject).toBe("Webhooks need attention · notify-digest");
      expect(mail.mails()[0]!.text).toContain("Register them in the app's settings");
    } finally {
      await prisma.svcAccount.update({
        where: { id: h.accountId },
        data: { webhookRegisteredAt: new Date() },
      });
    }
    await run(t0 + 80 * MIN);
    expect(mail.mails()).toHaveLength(1);
    expect(await prisma.noticeCondition.count({ where: { shopDomain: h.shopDomain } })).toBe(0);
  });

  it("the minute's scan gives each shop with addresses one job, which sends the digest", async () => {
    await orders(3, { state: "FAILED", reasonMessage: "Refused" });
    const worker = new Worker({
      prisma,
      workerId: "w-notify",
      handlers: notifyHandlers(() => smtpMailer(mail.smtpUrl)),
    });
    // Two scans in the same minute (two processes): one job for the shop.
    await enqueue(prisma, { kind: NOTIFY_JOB.scan, payload: {} });
    await enqueue(prisma, { kind: NOTIFY_JOB.scan, payload: {} });
    await worker.drain();
    await worker.drain();
    const jobs = await prisma.job.findMany({
      where: { kind: NOTIFY_JOB.shop, shopDomain: h.shopDomain },
    });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ state: "completed", result: { created: 3, notices: 3 } });
    expect(mail.mails()).toHaveLength(1);
    expect(mail.mails()[0]!.subject).toBe("3 orders failed · notify-digest");
  });
});

describe("the notification settings", () => {
  it("keeps a clean list of up to five addresses, and says what is wrong", () => {
    const ok = settingsSchema.shape.notifyEmails.safeParse(" A@x.com, b@y.org\nb@y.org ;c@z.io ");
    expect(ok).toMatchObject({ success: true, data: "a@x.com, b@y.org, c@z.io" });
    const bad = settingsSchema.shape.notifyEmails.safeParse("a@x.com, not-an-address");
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(
      "Enter email addresses like name@example.com, separated by commas",
    );
    const many = settingsSchema.shape.notifyEmails.safeParse(
      ["a", "b", "c", "d", "e", "f"].map((x) => `${x}@x.com`).join(","),
    );
    expect(many.error?.issues[0]?.message).toBe("At most 5 addresses");
    expect(settingsSchema.shape.lowBalanceUsd.safeParse("49.50").success).toBe(true);
    expect(settingsSchema.shape.lowBalanceUsd.safeParse("-1").success).toBe(false);
    expect(settingsSchema.shape.notifyDigestMinutes.safeParse("1").success).toBe(false);
  });

  it("an invalid save changes nothing", async () => {
    await reset();
    const r = await updateSettings(prisma, h.shopDomain, {
      notifyEmails: "nope",
      notifyOutage: false,
    });
    expect(r.ok).toBe(false);
    const s = await getSettings(prisma, h.shopDomain);
    expect(s.notifyEmails).toBe("owner@example.com, ops@example.com");
    expect(s.notifyOutage).toBe(true);
  });
});
