/**
 * The merchant's notification emails: what there is to tell (notices) and the digest that
 * tells it.
 *
 * `detectNotices` looks at the shop as the dashboard does (orders failed, held longer than the
 * set age or flagged after payment; a service outage and its end; a low balance; webhooks not
 * registered or missing deliveries) and records each thing once (Notice is unique per shop,
 * kind and key). `sendDigest` sends at most one email per `notifyDigestMinutes` per shop with
 * everything recorded since the last one, never one email per order. A digest is written with
 * its notices and its Message-ID before it is sent: a send that failed, or whose answer was
 * lost, is sent again as the same message (the digest is marked sent only once the server took
 * it).
 */
import { orderName } from "../orders/shop-time";
import { flagWords } from "../orders/plain-words";
import { createHash } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { config } from "../config.server";
import { balanceOf } from "../svc-account/account.server";
import { warningsOf } from "../workqueue/dashboard.server";
import { logger } from "../logger.server";
import { emailList, getSettings, type ShopSettings } from "../settings.server";
import { composeDigest, type DigestLinks, type DigestNotice } from "./compose";
import { isNoticeKind, KIND_SETTING, NOTICE_KINDS, type NoticeKind } from "./kinds";
import type { Mailer } from "./mailer.server";
import { unsubscribeUrl } from "./unsubscribe.server";

const DAY = 86400_000;
/** Orders are looked at for this long after their last change (older ones were told or are old news). */
const LOOKBACK_MS = 7 * DAY;
/** At most this many orders of each sort per scan (the newest). */
const SCAN_MAX = 500;
/** A digest that failed this many times is given up (the next one carries new notices). */
export const DIGEST_MAX_ATTEMPTS = 8;
/** Notices of a kind turned off are marked with this instead of a digest. */
const DROPPED = "dropped";

export interface Probe {
  /** The balance now (USD) when the service answered; outage when it did not. */
  amount: string | null;
  outage: boolean;
}

/** The service asked for the balance: an outage shows as a failed answer. */
export async function serviceProbe(db: PrismaClient, shop: string): Promise<Probe> {
  const b = await balanceOf(db, shop);
  return { amount: b.amount, outage: b.outage };
}

/** The host in the emails' Message-IDs: the app's own. */
export function mailHost(): string {
  return new URL(config.SHOPIFY_APP_URL).hostname || "localhost";
}

export function kindsOn(settings: ShopSettings): NoticeKind[] {
  return NOTICE_KINDS.filter((k) => settings[KIND_SETTING[k]]);
}

function short(text: string | null, max = 200): string {
  const t = (text ?? "").replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

interface NewNotice {
  kind: NoticeKind;
  key: string;
  text: string;
  orderId?: string;
}

/**
 * Records what is new to tell for one shop. `probe` asks the service for the balance (it tells
 * an outage, too); it is called only when the shop is connected.
 */
export async function detectNotices(
  db: PrismaClient,
  shop: string,
  settings: ShopSettings,
  probe: () => Promise<Probe>,
  now = Date.now(),
): Promise<{ created: number }> {
  const on = new Set(kindsOn(settings));
  const found: NewNotice[] = [];
  const since = new Date(now - LOOKBACK_MS);

  if (on.has("failures")) {
    const heldBefore = new Date(now - settings.notifyHeldAfterMinutes * 60_000);
    const select = {
      id: true,
      shopifyOrderId: true,
      shopifyOrderName: true,
      reasonCode: true,
      reasonMessage: true,
      flag: true,
    } as const;
    const [failed, held, flagged] = await Promise.all([
      db.shopOrder.findMany({
        where: { shopDomain: shop, state: "FAILED", updatedAt: { gte: since } },
        orderBy: { updatedAt: "desc" },
        take: SCAN_MAX,
        select,
      }),
      db.shopOrder.findMany({
        where: {
          shopDomain: shop,
          state: "HELD",
          updatedAt: { gte: since, lte: heldBefore },
          // An outage has its own notice (and its own end); a review-window wait is scheduled,
          // not a problem. A hold with no reason code is one: SQL's NOT IN drops NULLs.
          OR: [
            { reasonCode: null },
            { reasonCode: { notIn: ["service_unavailable", "review_window"] } },
          ],
        },
        orderBy: { updatedAt: "desc" },
        take: SCAN_MAX,
        select,
      }),
      db.shopOrder.findMany({
        where: { shopDomain: shop, flag: { not: null }, updatedAt: { gte: since } },
        orderBy: { updatedAt: "desc" },
        take: SCAN_MAX,
        select,
      }),
    ]);
    for (const o of failed)
      found.push({
        kind: "failures",
        key: `failed:${o.id}:${o.reasonCode ?? ""}`,
        text: `${orderName(o)} failed: ${short(o.reasonMessage) || "see its timeline"}`,
        orderId: o.id,
      });
    for (const o of held)
      found.push({
        kind: "failures",
        key: `held:${o.id}:${o.reasonCode ?? ""}`,
        text: `${orderName(o)} is held: ${short(o.reasonMessage) || "see its timeline"}`,
        orderId: o.id,
      });
    for (const o of flagged)
      found.push({
        kind: "failures",
        key: `flag:${o.id}:${createHash("sha256")
          .update(o.flag ?? "")
          .digest("hex")
          .slice(0, 16)}`,
        // The flag in words (what happened, what to do), never its code.
        text: `${orderName(o)}: ${short(flagWords(o.flag))}`,
        orderId: o.id,
      });
  }

  // The account's conditions: each is told when it starts (and an outage when it ends).
  const w = await warningsOf(db, shop, settings);
  const live: Probe = w.connected ? await probe() : { amount: null, outage: false };
  const balance = live.amount ?? w.knownBalance;
  const threshold = settings.lowBalanceUsd ? Number(settings.lowBalanceUsd) : null;
  const belowThreshold = balance !== null && threshold !== null && Number(balance) < threshold;
  // Failures and disputes are told as they happen (disputes by their sync), not as conditions.
  const conditions: Record<NoticeKind, string | null> = {
    failures: null,
    disputes: null,
    outage:
      live.outage || w.outageHeld > 0
        ? `The service is not answering${w.outageHeld ? `: ${w.outageHeld} order(s) wait for it` : ""}. Orders go on by themselves when it answers again.`
        : null,
    low_balance: belowThreshold
      ? `The balance (${balance} USD) is below your threshold of ${settings.lowBalanceUsd} USD. Top up at the service.`
      : w.balanceBelowWaiting || w.shortBalanceHeld > 0
        ? `The balance${balance !== null ? ` (${balance} USD)` : ""} does not cover the orders waiting for payment (${w.waitingCost} USD). Top up at the service: they are paid once it does.`
        : null,
    webhooks: w.webhooksMissing
      ? "The service's webhooks are not registered: tracking arrives only through the app's checks, later. Register them in the app's settings."
      : w.webhooksSkipping
        ? "The service's webhooks are missing deliveries; the app registers them again by itself."
        : null,
  };
  const open = await db.noticeCondition.findMany({ where: { shopDomain: shop } });
  for (const kind of ["outage", "low_balance", "webhooks"] as const) {
    const text = conditions[kind];
    const was = open.find((c) => c.kind === kind);
    if (text && !was) {
      const start = new Date(now);
      const made = await db.noticeCondition.createMany({
        data: [{ shopDomain: shop, kind, since: start }],
        skipDuplicates: true,
      });
      if (made.count === 1 && on.has(kind))
        found.push({ kind, key: `${kind}:${start.toISOString()}`, text });
    } else if (!text && was) {
      const gone = await db.noticeCondition.deleteMany({ where: { shopDomain: shop, kind } });
      if (gone.count === 1 && kind === "outage" && on.has(kind))
        found.push({
          kind,
          key: `outage-over:${was.since.toISOString()}`,
          text: `The service answers again (it did not from ${was.since.toISOString().slice(0, 16).replace("T", " ")} UTC); waiting orders go on.`,
        });
    }
  }

  if (found.length === 0) return { created: 0 };
  const made = await db.notice.createMany({
    data: found.map((n) => ({
      shopDomain: shop,
      kind: n.kind,
      key: n.key,
      text: n.text,
      orderId: n.orderId ?? null,
    })),
    skipDuplicates: true,
  });
  return { created: made.count };
}

/** Where the email's links go: the app inside Shopify's admin (the sandbox: the app itself). */
export function digestLinks(shop: string): DigestLinks {
  const path = (p: string) =>
    config.SANDBOX
      ? `${config.SHOPIFY_APP_URL.replace(/\/$/, "")}${p}`
      : `https://${shop}/admin/apps/${encodeURIComponent(config.SHOPIFY_API_KEY)}${p}`;
  return {
    attention: path("/app/orders?view=attention"),
    dashboard: path("/app"),
    order: (id) => path(`/app/orders/${encodeURIComponent(id)}`),
    unsubscribe: (kind) => unsubscribeUrl(shop, kind),
  };
}

export type DigestOutcome =
  | { sent: string; notices: number }
  | { skipped: string }
  | { failed: string; attempts: number };

/**
 * Sends the shop's next digest if one is due: the one that did not go out yet, else a new one
 * with every notice waiting, when the last was created `notifyDigestMinutes` ago or more.
 */
export async function sendDigest(
  db: PrismaClient,
  shop: string,
  settings: ShopSettings,
  mailer: Mailer | null,
  now = Date.now(),
): Promise<DigestOutcome> {
  const to = emailList(settings.notifyEmails);
  if (to.length === 0) return { skipped: "no addresses" };
  if (!mailer) return { skipped: "email is not set up on this server (SMTP_URL)" };
  const on = kindsOn(settings);

  let digest = await db.noticeDigest.findFirst({
    where: { shopDomain: shop, sentAt: null, attempts: { lt: DIGEST_MAX_ATTEMPTS } },
    orderBy: { createdAt: "asc" },
  });
  if (!digest) {
    digest = await db.$transaction(async (tx) => {
      // One digest at a time per shop, whatever the number of workers.
      await tx.$queryRaw`SELECT "id" FROM "Shop" WHERE "domain" = ${shop} FOR UPDATE`;
      const last = await tx.noticeDigest.findFirst({
        where: { shopDomain: shop },
        orderBy: { createdAt: "desc" },
        select: { createdAt: true, sentAt: true, attempts: true },
      });
      // Another worker's, not sent yet (a digest given up on no longer holds the next back).
      if (last && last.sentAt === null && last.attempts < DIGEST_MAX_ATTEMPTS) return null;
      if (last && now - last.createdAt.getTime() < settings.notifyDigestMinutes * 60_000)
        return null;
      await tx.notice.updateMany({
        where: { shopDomain: shop, digestId: null, kind: { notIn: on } },
        data: { digestId: DROPPED },
      });
      const waiting = await tx.notice.findMany({
        where: { shopDomain: shop, digestId: null },
        select: { id: true },
        orderBy: { createdAt: "asc" },
      });
      if (waiting.length === 0) return null;
      const id = createHash("sha256")
        .update(`${shop}:${now}:${waiting[0]!.id}`)
        .digest("hex")
        .slice(0, 24);
      const made = await tx.noticeDigest.create({
        data: {
          id,
          shopDomain: shop,
          messageId: `<digest-${id}@${mailHost()}>`,
          recipients: to.join(", "),
          subject: "",
          notices: waiting.length,
          createdAt: new Date(now),
        },
      });
      await tx.notice.updateMany({
        where: { id: { in: waiting.map((n) => n.id) } },
        data: { digestId: made.id },
      });
      return made;
    });
    if (!digest) return { skipped: "nothing due" };
  }

  const notices = (
    await db.notice.findMany({
      where: { digestId: digest.id },
      orderBy: { createdAt: "asc" },
      select: { kind: true, key: true, text: true, orderId: true },
    })
  ).filter((n): n is DigestNotice => isNoticeKind(n.kind));
  const mail = composeDigest(shop, notices, digestLinks(shop));
  try {
    await mailer.send({
      messageId: digest.messageId,
      from: config.MAIL_FROM,
      to: digest.recipients.split(", "),
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      headers: {
        // One click unsubscribes from all of them (RFC 8058); the body has a link per kind.
        "List-Unsubscribe": `<${digestLinks(shop).unsubscribe("all")}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Auto-Submitted": "auto-generated",
      },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const row = await db.noticeDigest.update({
      where: { id: digest.id },
      data: { attempts: { increment: 1 }, lastError: message.slice(0, 500) },
    });
    logger.warn(
      { shop, digestId: digest.id, attempts: row.attempts, err: message },
      "digest email not sent",
    );
    return { failed: message, attempts: row.attempts };
  }
  await db.noticeDigest.update({
    where: { id: digest.id },
    data: {
      sentAt: new Date(),
      attempts: { increment: 1 },
      subject: mail.subject,
      lastError: null,
    },
  });
  return { sent: digest.messageId, notices: notices.length };
}

/** One shop's turn: record what is new, then send the digest if one is due. */
export async function notifyShop(
  db: PrismaClient,
  shop: string,
  mailer: Mailer | null,
  probe: () => Promise<Probe>,
  now = Date.now(),
) {
  const settings = await getSettings(db, shop);
  if (emailList(settings.notifyEmails).length === 0) return { skipped: "no addresses" };
  const detected = await detectNotices(db, shop, settings, probe, now);
  const digest = await sendDigest(db, shop, settings, mailer, now);
  return { ...detected, ...digest };
}
