/**
 * Pay now (issue 14): with automatic payment off, orders wait at CREATED until the merchant
 * asks to pay them, one or a selection. The request is recorded on each order (payRequestedAt,
 * the timeline) and a pay run goes at once; the run pays only requested orders
 * (pay/index.server.ts), so nothing the merchant did not ask for is ever charged.
 */
import type { FulfilmentDeps } from "../orders/deps.server";
import { schedulePay } from "../orders/schedule.server";
import { addTimeline } from "../orders/timeline.server";

export interface PayNowResult {
  requested: number;
  /** Orders that cannot be paid now, with why (by shop order name or id). */
  refused: Array<{ orderId: string; why: string }>;
}

export async function requestPayment(
  deps: FulfilmentDeps,
  orderIds: string[],
  opts: { shopDomain: string },
): Promise<PayNowResult> {
  const db = deps.prisma;
  const out: PayNowResult = { requested: 0, refused: [] };
  const ids = [...new Set(orderIds)].slice(0, 250);
  const orders = await db.shopOrder.findMany({
    where: { id: { in: ids }, shopDomain: opts.shopDomain },
  });
  const found = new Set(orders.map((o) => o.id));
  for (const id of ids) if (!found.has(id)) out.refused.push({ orderId: id, why: "not found" });
  const accounts = new Set<string>();
  const now = new Date(deps.clock.now());
  for (const o of orders) {
    const payable =
      (o.state === "CREATED" || (o.state === "HELD" && o.reasonCode === "short_balance")) &&
      o.svcOrderId &&
      o.svcAccountId &&
      !o.paymentBatchId;
    if (!payable) {
      out.refused.push({
        orderId: o.id,
        why:
          o.state === "CREATED" && !o.svcOrderId
            ? "waits for its service order id"
            : o.paymentBatchId
              ? "is being paid"
              : `is ${o.state}`,
      });
      continue;
    }
    const n = await db.shopOrder.updateMany({
      where: { id: o.id, paymentBatchId: null, payRequestedAt: null },
      data: { payRequestedAt: now },
    });
    if (n.count === 1) {
      await addTimeline(db, o.id, {
        step: "pay",
        outcome: "info",
        message: "Pay now by the merchant: paid in the next payment run, at once.",
      });
    }
    out.requested++;
    accounts.add(o.svcAccountId!);
  }
  for (const accountId of accounts) {
    await schedulePay(db, {
      accountId,
      shopDomain: opts.shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: 0,
      key: `pay-now:${now.getTime()}`,
    });
  }
  return out;
}
