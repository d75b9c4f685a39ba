/**
 * What there is to tell a merchant: `detectNotices` looks at the shop as the dashboard does
 * (orders failed, held longer than the set age or flagged after payment; a service outage and
 * its end; a low balance; webhooks not registered or missing deliveries) and records each thing
 * once (Notice is unique per shop, kind and key). The digest that tells them: digest.server.ts.
 */
import { createHash } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { flagWords } from "../orders/plain-words";
import { orderName, shopDateTime } from "../orders/shop-time";
import { storedShopZone } from "../orders/shop-zone.server";
import type { ShopSettings } from "../settings.server";
import { warningsOf } from "../workqueue/dashboard.server";
import { kindsOn } from "./digest.server";
import type { NoticeKind } from "./kinds";

export interface Probe {
  /** The balance now (USD) when the service answered; outage when it did not. */
  amount: string | null;
  outage: boolean;
}

const DAY = 86400_000;
/** Orders are looked at for this long after their last change (older ones were told or are old news). */
const LOOKBACK_MS = 7 * DAY;
/** At most this many orders of each sort per scan (the newest). */
const SCAN_MAX = 500;

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

  if (on.has("failures")) found.push(...(await orderNotices(db, shop, settings, since, now)));
  found.push(...(await conditionNotices(db, shop, settings, { on, probe, now })));

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

/** Orders failed, held longer than the set age, or flagged after payment (of the last week). */
async function orderNotices(
  db: PrismaClient,
  shop: string,
  settings: ShopSettings,
  since: Date,
  now: number,
): Promise<NewNotice[]> {
  const found: NewNotice[] = [];
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
  return found;
}

/**
 * The account's conditions (an outage, a low balance, webhooks not registered or skipping):
 * each is told when it starts, and an outage when it ends.
 */
async function conditionNotices(
  db: PrismaClient,
  shop: string,
  settings: ShopSettings,
  c: { on: Set<NoticeKind>; probe: () => Promise<Probe>; now: number },
): Promise<NewNotice[]> {
  const { on, probe, now } = c;
  const found: NewNotice[] = [];
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
          text: `The service answers again (it did not from ${shopDateTime(was.since.toISOString(), await storedShopZone(db, shop))}); waiting orders go on.`,
        });
    }
  }
  return found;
}
