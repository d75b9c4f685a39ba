/**
 * The dashboard at a glance: the pipeline's counts, 14 days of orders, money for a period,
 * health, the warnings that need the merchant, problems. The live balance is not awaited here:
 * the page shows it (and an outage it reveals) when it comes (see `liveBalance`).
 */
import { orderName, PERIODS } from "../orders/shop-time";
import { isScheduled } from "../orders/states";
import type { PrismaClient } from "@prisma/client";
import { getSettings, type ShopSettings } from "../settings.server";
import type { DayBucket } from "../components/OrdersChart";
import { WEBHOOK_GAP_THRESHOLD } from "../svc-account/kinds";
import { accountStatus, balanceOf } from "../svc-account/account.server";
import { marginUsd, PROBLEM_STATES, stateCounts } from "./orders.server";
import { shopTimeZone } from "../orders/shop-zone.server";
import { flagWords, plainMessage } from "../orders/plain-words";

const DONE = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"];
const DAY = 86400_000;

/**
 * The dashboard page: its data for the period the address asks for (`?period=`, 30 days unless
 * one of PERIODS), and the live balance as a promise the page does not wait for.
 */
export async function dashboardPage(db: PrismaClient, shop: string, search: URLSearchParams) {
  const asked = Number(search.get("period"));
  const period = PERIODS.find((p) => p === asked) ?? 30;
  const data = await dashboardData(db, shop, Date.now(), period);
  return { ...data, live: liveBalance(db, shop, data.account.connected) };
}

export async function dashboardData(
  db: PrismaClient,
  shop: string,
  now = Date.now(),
  periodDays: number = 30,
) {
  const since = new Date(Math.floor(now / DAY) * DAY - 13 * DAY);
  // Read once: the warnings and the onboarding both need them.
  const settings = await getSettings(db, shop);
  const [counts, scheduled, recent, problems, account, connections, shopRow, warnings, money] =
    await Promise.all([
      stateCounts(db, shop),
      db.shopOrder.count({
        where: { shopDomain: shop, state: "HELD", reasonCode: "review_window" },
      }),
      db.shopOrder.findMany({
        where: { shopDomain: shop, createdAt: { gte: since } },
        select: { createdAt: true, state: true, flag: true, reasonCode: true },
      }),
      db.shopOrder.findMany({
        where: {
          shopDomain: shop,
          // A review-window wait is scheduled, not a problem.
          OR: [
            { state: "FAILED" },
            // `NOT` drops NULLs in SQL: a hold without a reason code is a problem too.
            { state: "HELD", OR: [{ reasonCode: null }, { reasonCode: { not: "review_window" } }] },
            { flag: { not: null } },
          ],
        },
        orderBy: { updatedAt: "desc" },
        take: 5,
        select: {
          id: true,
          shopifyOrderName: true,
          shopifyOrderId: true,
          state: true,
          reasonMessage: true,
          flag: true,
          updatedAt: true,
        },
      }),
      accountStatus(db, shop),
      db.productConnection.count({ where: { shopDomain: shop } }),
      db.shop.findUnique({ where: { domain: shop }, select: { authProblem: true } }),
      warningsOf(db, shop, settings),
      moneyOf(db, shop, now, periodDays),
    ]);
  const timeZone = await shopTimeZone(db, shop);
  const days: DayBucket[] = Array.from({ length: 14 }, (_, i) => ({
    day: new Date(since.getTime() + i * DAY).toISOString().slice(0, 10),
    done: 0,
    inProgress: 0,
    problems: 0,
  }));
  for (const o of recent) {
    const bucket = days[Math.floor((o.createdAt.getTime() - since.getTime()) / DAY)];
    if (!bucket) continue;
    if (o.flag || (PROBLEM_STATES.includes(o.state as never) && !isScheduled(o))) bucket.problems++;
    else if (DONE.includes(o.state)) bucket.done++;
    else if (o.state !== "CANCELLED") bucket.inProgress++;
  }
  return {
    /** Orders per state; held ones without those only scheduled (they are `scheduled`). */
    counts: { ...counts, HELD: counts.HELD - scheduled },
    /** Orders waiting for the review window: placed by themselves at their time. */
    scheduled,
    /** The shop's time zone (null: UTC). */
    timeZone,
    days,
    account,
    warnings,
    money,
    connections,
    /** No shipping rule and no earlier single method: orders wait (onboarding asks). */
    shippingUnset: settings.shippingRules.length === 0 && !settings.logisticName,
    /** Shopify no longer accepts the app's access (background work waits): why, for the merchant. */
    authProblem: shopRow?.authProblem ?? null,
    problems: problems.map((p) => ({
      id: p.id,
      name: orderName(p),
      state: p.state,
      // A flag's sentence (what happened and what to do), never its code: the one stored with
      // a disconnected account's flag names the account.
      reason: p.flag
        ? p.flag === "account_disconnected" && p.reasonMessage
          ? p.reasonMessage
          : (flagWords(p.flag) ?? "")
        : plainMessage(p.reasonMessage, timeZone),
      updatedAt: p.updatedAt.toISOString(),
    })),
  };
}

/** The live balance (a service call): awaited by the page, not by the loader. */
export function liveBalance(db: PrismaClient, shop: string, connected: boolean) {
  return connected
    ? balanceOf(db, shop)
    : Promise.resolve({ amount: null, error: "Not connected", outage: false });
}

const IN_FLIGHT = ["CREATED", "PAYING", "PAID", "SHIPPED"];

/**
 * What the dashboard warns about, from what the app knows without asking the service (the
 * notification emails use it too, app/notify).
 */
export async function warningsOf(db: PrismaClient, shop: string, given?: ShopSettings) {
  const [account, held, inFlight, waiting, settings] = await Promise.all([
    db.svcAccount.findUnique({
      where: { shopDomain: shop },
      select: {
        knownBalance: true,
        accessTokenEnc: true,
        refreshTokenEnc: true,
        apiKeyEnc: true,
        webhookRegisteredAt: true,
        webhookGaps: true,
      },
    }),
    db.shopOrder.groupBy({
      by: ["reasonCode"],
      where: {
        shopDomain: shop,
        state: "HELD",
        reasonCode: { in: ["service_unavailable", "protected_data", "short_balance"] },
      },
      _count: { _all: true },
    }),
    db.shopOrder.count({ where: { shopDomain: shop, state: { in: IN_FLIGHT } } }),
    // What the orders waiting for payment will cost: created and not in a payment yet, and
    // those held for the balance, in a payment batch or not (a batch the balance did not cover
    // keeps its orders; their amounts are what the service asks).
    db.shopOrder.findMany({
      where: {
        shopDomain: shop,
        OR: [
          { state: "CREATED", paymentBatchId: null },
          { state: "HELD", reasonCode: "short_balance" },
        ],
      },
      select: { amount: true },
    }),
    given ?? getSettings(db, shop),
  ]);
  const heldFor = (code: string) => held.find((h) => h.reasonCode === code)?._count._all ?? 0;
  const connected = Boolean(
    account && (account.accessTokenEnc || account.refreshTokenEnc || account.apiKeyEnc),
  );
  const waitingCents = waiting.reduce((a, o) => a + cents(o.amount), 0);
  const known = account?.knownBalance ?? null;
  const threshold = settings.lowBalanceUsd ? cents(settings.lowBalanceUsd) : null;
  return {
    /** Orders held because the service kept failing (they go on when it answers). */
    outageHeld: heldFor("service_unavailable"),
    /** Disconnected while orders are at the service: they get no tracking until reconnected. */
    disconnectedInFlight: connected ? 0 : inFlight,
    protectedDataHeld: heldFor("protected_data"),
    shortBalanceHeld: heldFor("short_balance"),
    /** The balance last seen, and what the waiting orders cost (USD). */
    knownBalance: known,
    waitingCost: (waitingCents / 100).toFixed(2),
    balanceBelowWaiting: known !== null && waitingCents > 0 && cents(known) < waitingCents,
    /** The merchant's low-balance threshold (USD), when set, and whether the balance is under it. */
    lowBalanceUsd: settings.lowBalanceUsd || null,
    balanceBelowThreshold: known !== null && threshold !== null && cents(known) < threshold,
    connected,
    /** Connected, but the service's webhooks are not registered, or deliveries go missing. */
    webhooksMissing: connected && !account?.webhookRegisteredAt,
    webhooksSkipping: connected && (account?.webhookGaps ?? 0) >= WEBHOOK_GAP_THRESHOLD,
  };
}

function cents(v: string | null): number {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? Math.round(n * 100) : 0;
}

/**
 * Money over the last `days` days: orders received, what the service was paid for the orders
 * paid in the period (USD), the shop's revenue of those orders (in the shop's currency) and
 * the margin in USD where it is known (shop total at the recorded rate, less the service cost).
 */
async function moneyOf(db: PrismaClient, shop: string, now: number, days: number) {
  const from = new Date(now - days * DAY);
  const [received, paid] = await Promise.all([
    db.shopOrder.count({
      where: { shopDomain: shop, createdAt: { gte: from }, state: { not: "CANCELLED" } },
    }),
    db.shopOrder.findMany({
      where: { shopDomain: shop, paidAt: { gte: from } },
      select: { amount: true, shopTotal: true, currency: true, fxRate: true },
    }),
  ]);
  let spend = 0;
  let margin = 0;
  let withMargin = 0;
  const revenue = new Map<string, number>();
  for (const o of paid) {
    spend += cents(o.amount);
    if (o.shopTotal && o.currency) {
      revenue.set(o.currency, (revenue.get(o.currency) ?? 0) + cents(o.shopTotal));
    }
    const m = marginUsd(o);
    if (m !== null) {
      margin += cents(m);
      withMargin++;
    }
  }
  return {
    days,
    received,
    paid: paid.length,
    spendUsd: (spend / 100).toFixed(2),
    revenue: [...revenue].map(([currency, c]) => ({ currency, amount: (c / 100).toFixed(2) })),
    marginUsd: withMargin ? (margin / 100).toFixed(2) : null,
    marginOrders: withMargin,
  };
}
