/**
 * Causes that clear themselves (issue 14): every hold records its cause (reasonCode); the event
 * that removes a cause (an account connected, a variant matched, money on the balance, settings
 * saved, the service answering again, exchange rates arriving) re-checks exactly the orders held
 * for it, at once, through the same place or pay job the pipeline runs. Retry asks `stillHeld`
 * first, so that it reports a cause that is still there instead of claiming success.
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { Db } from "../db/types";
import { getSettings, labelModeReason } from "../settings.server";
import { compareMoney, toMoney } from "../svc/decimal";
import { costGuardReason } from "./cost-guard";
import { shopDateTime } from "./shop-time";
import { storedShopZone } from "./shop-zone.server";
import { addTimeline } from "./timeline.server";
import { transition } from "./transition.server";
import type { ReasonCode } from "./states";
import { schedulePay, schedulePlace } from "./schedule.server";

/** What a re-check of one cause schedules: a place job per order, or a pay run per account. */
export async function recheckHeld(
  db: Db,
  shopDomain: string,
  causes: ReasonCode[],
  key: string,
): Promise<number> {
  const held = await db.shopOrder.findMany({
    where: { shopDomain, state: "HELD", reasonCode: { in: causes } },
    select: {
      id: true,
      reasonCode: true,
      svcAccountId: true,
      amount: true,
      shippingCost: true,
      shopTotal: true,
      currency: true,
      fxRate: true,
      createdAt: true,
      placeAfter: true,
    },
    take: 1000,
  });
  const accounts = new Set<string>();
  const settings = held.some(
    (o) => o.reasonCode === "cost_guard" || o.reasonCode === "review_window",
  )
    ? await getSettings(db, shopDomain)
    : null;
  // Scheduled orders are not held for a problem: they are not counted as checked again.
  let scheduled = 0;
  for (const o of held) {
    if (o.reasonCode === "review_window") {
      scheduled++;
      if (settings) await moveReviewWindow(db, shopDomain, o, settings.reviewWindowMinutes, key);
      continue;
    }
    // Created at the service already: the pay run decides (it takes them back into a batch).
    if (o.reasonCode === "short_balance" || o.reasonCode === "warehouse_mode") {
      if (o.svcAccountId) accounts.add(o.svcAccountId);
      continue;
    }
    if (o.reasonCode === "cost_guard") {
      // Created at the service already: the guard is asked again with the settings now.
      if (settings && o.svcAccountId && !costGuardReason(settings, o)) {
        const moved = await transition(
          db,
          { id: o.id, reasonCode: "cost_guard" },
          {
            to: "CREATED",
            from: ["HELD"],
            reason: null,
            message: null,
            timeline: {
              step: "guard",
              outcome: "info",
              message: "The cost guard's settings changed: the order goes into the next payment.",
            },
          },
        );
        if (moved.length === 1) accounts.add(o.svcAccountId);
      }
      continue;
    }
    await schedulePlace(db, { orderId: o.id, shopDomain, key: `recheck:${key}` });
  }
  for (const accountId of accounts) {
    await schedulePay(db, {
      accountId,
      shopDomain,
      nowMs: Date.now(),
      windowSeconds: 0,
      key: `recheck:${key}`,
    });
  }
  return held.length - scheduled;
}

/**
 * A shorter review window in Settings brings a waiting order's time forward (received + the
 * new window; at once when that has passed). A longer one leaves it: the merchant was told a
 * time, and an order is never placed later than it said.
 */
async function moveReviewWindow(
  db: Db,
  shopDomain: string,
  o: { id: string; createdAt: Date; placeAfter: Date | null },
  minutes: number,
  key: string,
): Promise<void> {
  const at = new Date(o.createdAt.getTime() + minutes * 60_000);
  if (o.placeAfter && at.getTime() >= o.placeAfter.getTime()) return;
  const n = await db.shopOrder.updateMany({
    where: { id: o.id, state: "HELD", reasonCode: "review_window" },
    data: {
      placeAfter: at,
      reasonMessage: `Waiting ${minutes} minutes (the review window) before sending it to the service.`,
    },
  });
  if (n.count === 0) return;
  await addTimeline(db, o.id, {
    step: "schedule",
    outcome: "info",
    message: `The review window is now ${minutes} minutes: the order is placed earlier.`,
  });
  await schedulePlace(db, {
    orderId: o.id,
    shopDomain,
    delayMs: Math.max(0, at.getTime() - Date.now()),
    key: `window:${at.getTime()}:${key}`,
  });
}

/** The causes a settings save can remove (a shorter review window moves scheduled orders). */
export const SETTINGS_CAUSES: ReasonCode[] = [
  "review_window",
  "cost_guard",
  "warehouse_mode",
  "settings_incomplete",
  "paused",
  "no_shipping_method",
  "no_fx_rate",
];

/**
 * The held order's cause, if a cheap look at the database shows it is still there: a sentence
 * for the merchant ("Still held: …"), or null when it may have gone (the place step decides).
 */
export async function stillHeld(
  db: Db,
  o: Pick<OrderRow, "id" | "shopDomain" | "state" | "reasonCode"> &
    Partial<Pick<OrderRow, "placeAfter">>,
  now: number = Date.now(),
): Promise<string | null> {
  if (o.state !== "HELD") return null;
  switch (o.reasonCode) {
    case "review_window":
      // Retry does not cut the review window short; Release does.
      return o.placeAfter && o.placeAfter.getTime() > now
        ? `Still held: the review window ends at ${shopDateTime(o.placeAfter.toISOString(), await storedShopZone(db, o.shopDomain))}. Release it to send it now.`
        : null;
    case "paused":
      return (await getSettings(db, o.shopDomain)).paused
        ? "Still held: the shop is paused in Settings. Resume it and the order goes on."
        : null;
    case "warehouse_mode": {
      const why = labelModeReason(await getSettings(db, o.shopDomain));
      return why ? `Still held: ${why}` : null;
    }
    case "no_account": {
      const account = await db.svcAccount.findUnique({
        where: { shopDomain: o.shopDomain },
        select: { id: true },
      });
      return account
        ? null
        : "Still held: no service account is connected. Connect one in Settings and the order goes on.";
    }
    case "unconnected_lines": {
      const lines = await db.shopOrderLine.findMany({
        where: { orderId: o.id, svcVid: null },
        select: { shopifyVariantId: true },
      });
      const variants = lines.flatMap((l) => (l.shopifyVariantId ? [l.shopifyVariantId] : []));
      const matched = await db.productConnection.count({
        where: { shopDomain: o.shopDomain, shopifyVariantId: { in: variants } },
      });
      const left = lines.length - matched;
      return left > 0
        ? `Still held: ${left} line${left === 1 ? " has" : "s have"} no match. Connect ${left === 1 ? "it" : "them"} on the Products page and the order goes on.`
        : null;
    }
    case "cost_guard": {
      // Retry does not pay over the guard; Release does (the merchant's decision).
      const row = await db.shopOrder.findUnique({
        where: { id: o.id },
        select: { amount: true, shippingCost: true, shopTotal: true, currency: true, fxRate: true },
      });
      const reason = row ? costGuardReason(await getSettings(db, o.shopDomain), row) : null;
      return reason ? `Still held: ${reason.replace(/^Held before payment: /, "")}` : null;
    }
    default:
      return null;
  }
}

/**
 * A balance read from the service (the merchant's account page, the reconciler): stored as the
 * account's known balance, so the next pay run goes by it, and when it covers an order held for
 * a short balance, a pay run now.
 */
export async function balanceSeen(
  db: Db,
  account: { id: string; shopDomain: string | null },
  amount: string,
  nowMs: number,
): Promise<boolean> {
  await db.svcAccount.update({
    where: { id: account.id },
    data: { knownBalance: toMoney(amount), knownBalanceAt: new Date(nowMs) },
  });
  const held = await db.shopOrder.findMany({
    where: { svcAccountId: account.id, state: "HELD", reasonCode: "short_balance" },
    select: { amount: true },
  });
  const covered = held.some((o) => o.amount === null || compareMoney(o.amount, amount) <= 0);
  if (!covered) return false;
  await schedulePay(db, {
    accountId: account.id,
    shopDomain: account.shopDomain,
    nowMs,
    windowSeconds: 0,
    key: `balance:${Math.floor(nowMs / 1000)}`,
  });
  return true;
}
