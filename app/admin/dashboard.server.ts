/** The dashboard at a glance: the pipeline's counts, 14 days of orders, money, health, problems. */
import type { PrismaClient } from "@prisma/client";
import { getSettings } from "../settings.server";
import type { DayBucket } from "../components/OrdersChart";
import { accountStatus, balanceOf } from "./account.server";
import { PROBLEM_STATES, stateCounts } from "./orders.server";

const DONE = ["PAID", "SHIPPED", "FULFILLED", "DELIVERED"];
const DAY = 86400_000;

export async function dashboardData(db: PrismaClient, shop: string, now = Date.now()) {
  const since = new Date(Math.floor(now / DAY) * DAY - 13 * DAY);
  const [counts, recent, problems, account, connections, shopRow] = await Promise.all([
    stateCounts(db, shop),
    db.shopOrder.findMany({
      where: { shopDomain: shop, createdAt: { gte: since } },
      select: { createdAt: true, state: true, flag: true },
    }),
    db.shopOrder.findMany({
      where: {
        shopDomain: shop,
        OR: [{ state: { in: PROBLEM_STATES } }, { flag: { not: null } }],
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
  ]);
  const days: DayBucket[] = Array.from({ length: 14 }, (_, i) => ({
    day: new Date(since.getTime() + i * DAY).toISOString().slice(0, 10),
    done: 0,
    inProgress: 0,
    problems: 0,
  }));
  for (const o of recent) {
    const bucket = days[Math.floor((o.createdAt.getTime() - since.getTime()) / DAY)];
    if (!bucket) continue;
    if (o.flag || PROBLEM_STATES.includes(o.state as never)) bucket.problems++;
    else if (DONE.includes(o.state)) bucket.done++;
    else if (o.state !== "CANCELLED") bucket.inProgress++;
  }
  const balance = account.connected ? await balanceOf(db, shop) : null;
  return {
    counts,
    days,
    account,
    balance,
    connections,
    /** No shipping rule and no earlier single method: orders wait (onboarding asks). */
    shippingUnset: await shippingUnset(db, shop),
    /** Shopify no longer accepts the app's access (background work waits): why, for the merchant. */
    authProblem: shopRow?.authProblem ?? null,
    problems: problems.map((p) => ({
      id: p.id,
      name: p.shopifyOrderName ?? `#${p.shopifyOrderId}`,
      state: p.state,
      reason: p.flag ?? p.reasonMessage ?? "",
      updatedAt: p.updatedAt.toISOString(),
    })),
  };
}

async function shippingUnset(db: PrismaClient, shop: string): Promise<boolean> {
  const s = await getSettings(db, shop);
  return s.shippingRules.length === 0 && !s.logisticName;
}
