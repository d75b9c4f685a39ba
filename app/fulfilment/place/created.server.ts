/**
 * The order created at the service, recorded: CREATED (or HELD by the cost guard before a pay
 * run can see it) through `transition`, with its timeline, and automatic payment scheduled (at
 * once when the batch is already full).
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { costGuardReason } from "../../orders/cost-guard";
import { pendingCount } from "../../jobs/enqueue.server";
import { CREATING_PAY_WINDOW_SECONDS, JOB, schedulePay } from "../../orders/schedule.server";
import { addTimeline } from "../../orders/timeline.server";
import { transition } from "../../orders/transition.server";
import type { ShopSettings } from "../../settings.server";
import type { Choice } from "../../shipping/choose.server";
import { toMoney } from "../../svc/decimal";
import type { PlaceResult } from "./outcome.server";

/** What the service answered (or what a lost answer is known to be). */
export interface Created {
  svcOrderId: string | null;
  amount: string | null;
  shipmentOrderId: string | null;
  note: string;
}

export async function recordCreated(
  deps: FulfilmentDeps,
  order: OrderRow & { svcAccountId: string },
  settings: ShopSettings,
  shipping: { choice: Choice },
  created: Created,
): Promise<PlaceResult> {
  const db = deps.prisma;
  const { svcOrderId, amount, note } = created;
  const waiting = !svcOrderId;
  const cost = amount ? toMoney(amount) : null;
  const shippingCost = shipping.choice.priceUsd ?? null;
  // Automatic payment would pay it: the cost guard looks first, in the same write (a pay run
  // must never see it CREATED in between).
  const guard =
    svcOrderId && settings.autoPay
      ? costGuardReason(settings, { ...order, amount: cost, shippingCost })
      : null;
  await transition(db, order.id, {
    to: guard ? "HELD" : "CREATED",
    reason: guard ? "cost_guard" : waiting ? "waiting_connection" : null,
    message:
      guard ??
      (waiting
        ? `Created at the service, which keeps it among invalid orders until its products are connected${note ? ` (${note})` : ""}.`
        : null),
    set: {
      svcOrderId,
      amount: cost,
      shipmentOrderId: created.shipmentOrderId,
      logisticName: shipping.choice.logisticName,
      shippingCost,
      placedAt: new Date(deps.clock.now()),
    },
    timeline: {
      step: "create",
      outcome: "ok",
      message: svcOrderId
        ? `Created at the service as ${svcOrderId}${amount ? ` (${toMoney(amount)} USD)` : ""}${note ? `, ${note}` : ""}.`
        : `Created at the service without an order id yet${note ? `: ${note}` : ""}.`,
    },
  });
  if (guard) {
    await addTimeline(db, order.id, {
      step: "guard",
      outcome: "held",
      errorCode: "cost_guard",
      message: guard,
    });
    return { outcome: "held", reason: "cost_guard" };
  }
  if (svcOrderId && settings.autoPay) {
    await schedulePay(db, {
      accountId: order.svcAccountId,
      shopDomain: order.shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: await payWindowAfterCreate(deps, order.shopDomain, settings),
    });
    await scheduleFullBatch(deps, order.svcAccountId, order.shopDomain, settings);
  }
  return { outcome: "created", svcOrderId };
}

/**
 * The window of the pay run a create asks for: the shop's batch window, or, while other creates
 * of the shop are in flight, at least CREATING_PAY_WINDOW_SECONDS. Then the create that fills
 * the batch runs it at once, the last create asks for the batch window, and a run in between
 * only defers (one every few seconds, not one per second-long window).
 */
async function payWindowAfterCreate(
  deps: FulfilmentDeps,
  shopDomain: string,
  settings: ShopSettings,
): Promise<number> {
  const window = settings.payBatchWindowSeconds;
  if (window === 0 || window >= CREATING_PAY_WINDOW_SECONDS) return window;
  // This create's own place job, when it runs in one, is counted: others are in flight past 1.
  const placing = await pendingCount(deps.prisma, { kind: JOB.place, shopDomain });
  return placing > 1 ? CREATING_PAY_WINDOW_SECONDS : window;
}

/** A batch that is already full need not wait for the end of its window. */
async function scheduleFullBatch(
  deps: FulfilmentDeps,
  accountId: string,
  shopDomain: string,
  settings: ShopSettings,
) {
  if (settings.payBatchWindowSeconds === 0) return;
  const waiting = await deps.prisma.shopOrder.count({
    where: {
      svcAccountId: accountId,
      state: "CREATED",
      svcOrderId: { not: null },
      paymentBatchId: null,
    },
  });
  // `>=`, not `% size === 0`: concurrent creates may count past the exact multiple; a run
  // already waiting is reused (schedulePay), so this costs no extra job.
  if (waiting >= settings.payBatchSize) {
    await schedulePay(deps.prisma, {
      accountId,
      shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: settings.payBatchWindowSeconds,
      now: true,
      key: `full:${waiting}:${Math.floor(deps.clock.now() / 1000)}`,
    });
  }
}
