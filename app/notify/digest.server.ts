/**
 * The merchant's digest email: `sendDigest` sends at most one email per `notifyDigestMinutes`
 * per shop with everything recorded since the last one (detect.server.ts), never one email per
 * order. A digest is written with its notices and its Message-ID before it is sent: a send that
 * failed, or whose answer was lost, is sent again as the same message (the digest is marked sent
 * only once the server took it).
 */
import { createHash } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { config } from "../config.server";
import { logger } from "../logger.server";
import { emailList, type ShopSettings } from "../settings.server";
import { composeDigest, type DigestLinks, type DigestNotice } from "./compose";
import { isNoticeKind, KIND_SETTING, NOTICE_KINDS, type NoticeKind } from "./kinds";
import type { Mailer } from "./mailer.server";
import { unsubscribeUrl } from "./unsubscribe.server";

/** A digest that failed this many times is given up (the next one carries new notices). */
export const DIGEST_MAX_ATTEMPTS = 8;
/** Notices of a kind turned off are marked with this instead of a digest. */
const DROPPED = "dropped";

/** The host in the emails' Message-IDs: the app's own. */
export function mailHost(): string {
  return new URL(config.SHOPIFY_APP_URL).hostname || "localhost";
}

export function kindsOn(settings: ShopSettings): NoticeKind[] {
  return NOTICE_KINDS.filter((k) => settings[KIND_SETTING[k]]);
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
    digest = await newDigest(db, shop, settings, { on, to, now });
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

/**
 * A new digest with every notice waiting (notices of a kind turned off are dropped), when the
 * last was created `notifyDigestMinutes` ago or more; null when none is due.
 */
async function newDigest(
  db: PrismaClient,
  shop: string,
  settings: ShopSettings,
  w: { on: NoticeKind[]; to: string[]; now: number },
) {
  const { on, to, now } = w;
  return db.$transaction(async (tx) => {
    // One digest at a time per shop, whatever the number of workers.
    await tx.$queryRaw`SELECT "id" FROM "Shop" WHERE "domain" = ${shop} FOR UPDATE`;
    const last = await tx.noticeDigest.findFirst({
      where: { shopDomain: shop },
      orderBy: { createdAt: "desc" },
      select: { createdAt: true, sentAt: true, attempts: true },
    });
    // Another worker's, not sent yet (a digest given up on no longer holds the next back).
    if (last && last.sentAt === null && last.attempts < DIGEST_MAX_ATTEMPTS) return null;
    if (last && now - last.createdAt.getTime() < settings.notifyDigestMinutes * 60_000) return null;
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
}
