/**
 * The account's conditions (app/notify/notices.server.ts) per shop and per kind: one shop's
 * outage neither hides nor ends another's, one kind open does not hide another starting, and a
 * threshold with no balance known tells nothing; one shop's digest does not hold back
 * another's. The rest is in notices.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { smtpMailer } from "../../app/notify/mailer.server";
import { detectNotices, type Probe } from "../../app/notify/detect.server";
import { sendDigest } from "../../app/notify/digest.server";
import { settingsSchema } from "../../app/settings.server";
import { type MailSim, startMailSim } from "../sim/mail/server";

const A = "notices-shop-a.myshopify.com";
const B = "notices-shop-b.myshopify.com";
const MIN = 60_000;
const HOUR = 60 * MIN;

const settings = (over: Record<string, unknown> = {}) =>
  settingsSchema.parse({ notifyEmails: "owner@example.com", ...over });
const answer = (p: Probe) => async () => p;
const down = answer({ amount: null, outage: true });
const up = answer({ amount: "1000.00", outage: false });

beforeAll(async () => {
  for (const shop of [A, B]) {
    await prisma.svcAccount.create({
      data: {
        shopDomain: shop,
        baseUrl: "http://svc.example.com",
        authMethod: "apiKey",
        apiKeyEnc: "stored",
        webhookRegisteredAt: new Date(),
      },
    });
  }
});

describe("conditions per shop and kind", () => {
  it("one shop's outage neither hides nor ends another's", async () => {
    const t0 = Date.now();
    expect(await detectNotices(prisma, A, settings(), down, t0)).toEqual({ created: 1 });
    // B's outage starts while A's is open: told to B too.
    expect(await detectNotices(prisma, B, settings(), down, t0 + MIN)).toEqual({ created: 1 });
    // B's ends: A's stays open (no second start told to A, its end still to come).
    expect(await detectNotices(prisma, B, settings(), up, t0 + 2 * MIN)).toEqual({ created: 1 });
    expect(await prisma.noticeCondition.findMany({ select: { shopDomain: true } })).toEqual([
      { shopDomain: A },
    ]);
    expect(await detectNotices(prisma, A, settings(), down, t0 + 3 * MIN)).toEqual({ created: 0 });
    expect(await detectNotices(prisma, A, settings(), up, t0 + 4 * MIN)).toEqual({ created: 1 });
    const keys = (shop: string) =>
      prisma.notice
        .findMany({ where: { shopDomain: shop }, select: { key: true } })
        .then((r) => r.map((n) => n.key.split(":")[0]).sort());
    expect(await keys(A)).toEqual(["outage", "outage-over"]);
    expect(await keys(B)).toEqual(["outage", "outage-over"]);
  });

  it("a low balance starting while an outage is open is told", async () => {
    const t0 = Date.now() + 10 * MIN;
    const low = settings({ lowBalanceUsd: "50" });
    expect(await detectNotices(prisma, A, low, down, t0)).toEqual({ created: 1 });
    expect(
      await detectNotices(prisma, A, low, answer({ amount: "10.00", outage: false }), t0 + MIN),
    ).toEqual({ created: 2 }); // the outage's end and the low balance
    const kinds = await prisma.noticeCondition.findMany({ where: { shopDomain: A } });
    expect(kinds.map((k) => k.kind)).toEqual(["low_balance"]);
    await prisma.noticeCondition.deleteMany({});
  });

  it("a threshold with no balance known tells nothing", async () => {
    // The service did not answer and no balance was ever seen: nothing to compare.
    const b = settings({ lowBalanceUsd: "20", notifyOutage: false });
    expect(await detectNotices(prisma, B, b, down, Date.now() + 20 * MIN)).toEqual({
      created: 0,
    });
    expect(
      await prisma.noticeCondition.findMany({ where: { shopDomain: B }, select: { kind: true } }),
    ).toEqual([{ kind: "outage" }]);
  });
});

describe("digests per shop", () => {
  let mail: MailSim;
  beforeAll(async () => {
    mail = await startMailSim();
  });
  afterAll(async () => {
    await mail?.close();
  });

  it("one shop's recent digest does not hold back another shop's first", async () => {
    await prisma.notice.deleteMany({});
    for (const shop of [A, B]) {
      await prisma.notice.create({
        data: { shopDomain: shop, kind: "outage", key: "outage:t", text: "Not answering." },
      });
    }
    const t0 = Date.now() + HOUR;
    const mailer = smtpMailer(mail.smtpUrl);
    expect(await sendDigest(prisma, B, settings(), mailer, t0)).toMatchObject({ notices: 1 });
    expect(await sendDigest(prisma, A, settings(), mailer, t0 + MIN)).toMatchObject({
      notices: 1,
    });
    expect(mail.mails()).toHaveLength(2);
  });
});
