/**
 * The order created at the service, recorded: CREATED (or HELD by the cost guard before a pay
 * run can see it) through `transition`, with its timeline, and automatic payment scheduled (at
 * once when the batch is already full).
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { costGuardReason } from "../../orders/cost-guard";
import { pendingSql } from "../../jobs/enqueue.server";
import {
  CREATING_PAY_WINDOW_SECONDS,
  creatingKinds,
  schedulePay,
} from "../../orders/schedule.server";
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
  if (svcOrderId && settings.autoPay) await schedulePayAfterCreate(deps, order, settings);
  return { outcome: "created", svcOrderId };
}

/**
 * The pay run a create asks for: with no batch window, at once; else, with one read of what it
 * depends on, at the end of the shop's batch window, or, while other creates of the shop are in
 * flight, at least CREATING_PAY_WINDOW_SECONDS later (then the create that fills the batch runs
 * it at once, the last create asks for the batch window, and a run in between only defers: one
 * every few seconds, not one per second-long window); at once as well when the batch is full.
 */
async function schedulePayAfterCreate(
  deps: FulfilmentDeps,
  order: { svcAccountId: string; shopDomain: string },
  settings: ShopSettings,
) {
  const window = settings.payBatchWindowSeconds;
  const pay = { accountId: order.svcAccountId, shopDomain: order.shopDomain };
  if (window === 0) {
    // A run at once (one already waiting is reused): nothing to count.
    await schedulePay(deps.prisma, { ...pay, nowMs: deps.clock.now(), windowSeconds: 0 });
    return;
  }
  const { placing, waiting } = await batchState(deps, order, settings.trigger);
  await schedulePay(deps.prisma, {
    ...pay,
    nowMs: deps.clock.now(),
    // This create's own job, when it is a place job or its order's delivery, is counted.
    windowSeconds: placing > 1 ? Math.max(window, CREATING_PAY_WINDOW_SECONDS) : window,
  });
  // `>=`, not `% size === 0`: concurrent creates may count past the exact multiple; a run
  // already waiting is reused (schedulePay), so this costs no extra job.
  if (waiting >= settings.payBatchSize) {
    await schedulePay(deps.prisma, {
      ...pay,
      nowMs: deps.clock.now(),
      windowSeconds: window,
      now: true,
      key: `full:${waiting}:${Math.floor(deps.clock.now() / 1000)}`,
    });
  }
}

/**
 * In one statement: the shop's creates in flight and the account's created orders waiting for
 * a batch.
 */
async function batchState(
  deps: FulfilmentDeps,
  order: { svcAccountId: string; shopDomain: string },
  trigger: string,
): Promise<{ placing: number; waiting: number }> {
  const placing = pendingSql({ kinds: creatingKinds(trigger), shopDomain: order.shopDomain });
  const [row] = await deps.prisma.$queryRaw<{ placing: number; waiting: number }[]>`
    SELECT (${placing})::int AS "placing",
      (SELECT count(*)::int FROM "ShopOrder"
       WHERE "svcAccountId" = ${order.svcAccountId} AND "state" = 'CREATED'
         AND "svcOrderId" IS NOT NULL AND "paymentBatchId" IS NULL) AS "waiting"`;
  return { placing: Number(row!.placing), waiting: Number(row!.waiting) };
}
