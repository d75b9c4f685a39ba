/**
 * Repairing an order the service refused or that the merchant wants changed before it is paid
 * (issue 14): a new shipping method goes to the existing service order with updateLogistics
 * while it is at or before the cart; corrections of the recipient (or a method the service will
 * not change) place it again as a NEW service order under a suffixed number (`…-R1`), the old
 * one left unpaid and recorded as replaced — nothing ever pays it, since payments go by the
 * order's current service order only. Every repair is on the timeline.
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import type { FulfilmentDeps } from "../orders/deps.server";
import { orderNumberFor } from "../orders/model";
import { PAID_STATES } from "../orders/states";
import { schedulePay, schedulePlace } from "../orders/schedule.server";
import { errorFields } from "../orders/timeline.server";
import { transition } from "../orders/transition.server";
import { SvcError, SvcOrderStateError } from "../svc/errors";
import { type Recipient, RECIPIENT_FIELDS, recipientSchema, storedRecipient } from "./recipient";

export type RepairResult =
  | { ok: true; outcome: "logistics_updated" | "placed_again" | "placing"; message: string }
  | { ok: false; error: string; errors?: Record<string, string> };

/** Payment batch states in which the order can still leave its batch. */
const LEAVABLE_BATCH = ["open", "carted", "failed"];

/** `<base>-R<n>`: the base cut so the whole stays within the contract's 50 characters. */
export function replacementNumber(base: string, attempt: number): string {
  const suffix = `-R${attempt}`;
  return `${base.slice(0, 50 - suffix.length)}${suffix}`;
}

/** Why the order cannot be repaired now, or null. */
async function refusal(deps: FulfilmentDeps, o: OrderRow): Promise<string | null> {
  if (PAID_STATES.includes(o.state as never)) {
    return "The order is paid: the service order can no longer be changed. Open a dispute with the service instead.";
  }
  if (o.state === "CANCELLED") return "The order is cancelled.";
  if (o.state === "PAYING") return "The order is being paid: wait for the payment to finish.";
  if (o.paymentBatchId) {
    const b = await deps.prisma.paymentBatch.findUnique({ where: { id: o.paymentBatchId } });
    if (b && !LEAVABLE_BATCH.includes(b.state)) {
      return "The order is being paid: wait for the payment to finish.";
    }
  }
  return null;
}

export async function repairOrder(
  deps: FulfilmentDeps,
  orderId: string,
  input: { recipient?: Record<string, unknown>; logisticName?: string; useShopAddress?: boolean },
  opts: { shopDomain: string },
): Promise<RepairResult> {
  const db = deps.prisma;
  const o = await db.shopOrder.findUnique({ where: { id: orderId } });
  if (!o || o.shopDomain !== opts.shopDomain) return { ok: false, error: "Order not found." };
  const refused = await refusal(deps, o);
  if (refused) return { ok: false, error: refused };

  const before = storedRecipient(o.recipient);
  let after: Recipient = before;
  if (input.useShopAddress) {
    // Back to the shop's address; the customs ids stay.
    after = Object.fromEntries(
      Object.entries(before).filter(([k]) => ["taxId", "houseNumber", "consigneeID"].includes(k)),
    );
  } else if (input.recipient) {
    const parsed = recipientSchema.safeParse(input.recipient);
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const i of parsed.error.issues) errors[String(i.path[0])] ??= i.message;
      return { ok: false, error: "Correct the fields shown.", errors };
    }
    after = parsed.data as Recipient;
  }
  const changed = RECIPIENT_FIELDS.filter((k) => (before[k] ?? "") !== (after[k] ?? ""));
  const method = input.logisticName?.trim() || null;
  const methodChanged = method !== null && method !== o.logisticName;
  const addressChanged = o.flag === "address_changed" && input.useShopAddress;
  if (changed.length === 0 && !methodChanged && !addressChanged) {
    return { ok: false, error: "Nothing changed: edit the recipient or choose another method." };
  }
  const what = [
    ...(changed.length ? [`recipient (${changed.join(", ")})`] : []),
    ...(methodChanged ? [`method → ${method}`] : []),
    ...(addressChanged ? ["the address as now in Shopify"] : []),
  ].join("; ");

  // Not at the service yet: the corrections apply when it is placed.
  if (!o.svcOrderId && !o.placedAt) {
    await transition(db, o.id, {
      to: "RECEIVED",
      reason: null,
      message: null,
      set: { recipient: after, ...(methodChanged ? { logisticName: method } : {}) },
      timeline: {
        step: "repair",
        outcome: "info",
        message: `Repaired by the merchant: ${what}. It is placed with the corrections now.`,
      },
    });
    await schedulePlace(db, {
      orderId: o.id,
      shopDomain: o.shopDomain,
      key: `repair:${Date.now()}`,
    });
    return {
      ok: true,
      outcome: "placing",
      message: "Saved: the order is placed with the corrections now.",
    };
  }

  // Only the method, and the service order is still at or before the cart: change it there.
  if (methodChanged && changed.length === 0 && !addressChanged && o.svcOrderId && o.svcAccountId) {
    const r = await changeLogistics(deps, o, method!);
    if (r.ok) return r;
    if (!("placeAgain" in r)) return r;
  }
  return placeAgainAsNew(deps, o.id, {
    reason: what,
    recipient: after,
    logisticName: methodChanged ? method : undefined,
  });
}

async function changeLogistics(
  deps: FulfilmentDeps,
  o: OrderRow,
  method: string,
): Promise<RepairResult | { ok: false; error: string; placeAgain: true }> {
  const db = deps.prisma;
  const client = await deps.svcFor(o.svcAccountId!);
  try {
    const options = await client.logistics.optionalLogistics(o.svcOrderId!);
    const option = options.find((x) => x.logisticsName?.toLowerCase() === method.toLowerCase());
    if (!option) {
      return {
        ok: false,
        error: `${method} is not offered for this order. Offered: ${options.map((x) => x.logisticsName).join(", ") || "nothing"}.`,
      };
    }
    const r = await client.logistics.updateLogistics({
      id: option.id!,
      orderCode: o.svcOrderId!,
      logisticsName: option.logisticsName!,
    });
    const intercepted = r.interceptAbnormalReasons.length > 0;
    const unusable =
      (r.abnormalReason as { logisticsCanUser?: boolean } | undefined)?.logisticsCanUser === false;
    if (intercepted || unusable) {
      const why = (r.interceptAbnormalReasons as Array<{ message?: string }>)
        .map((x) => x?.message)
        .filter(Boolean)
        .join("; ");
      return {
        ok: false,
        error: `The service will not ship this order with ${method}${why ? `: ${why}` : ""}.`,
      };
    }
    await transition(db, o.id, {
      to: "CREATED",
      reason: null,
      message: null,
      set: {
        logisticName: option.logisticsName,
        shippingCost: option.postage ?? null,
        paymentBatchId: null,
      },
      timeline: {
        step: "repair",
        outcome: "ok",
        message: `Repaired by the merchant: shipping method changed at the service to ${option.logisticsName}${option.postage ? ` (${option.postage} USD)` : ""} (updateLogistics); it goes to the next payment.`,
      },
    });
    await schedulePay(db, {
      accountId: o.svcAccountId!,
      shopDomain: o.shopDomain,
      nowMs: deps.clock.now(),
      windowSeconds: 0,
      key: `repair:${o.id}:${deps.clock.now()}`,
    });
    return {
      ok: true,
      outcome: "logistics_updated",
      message: `Shipping changed to ${option.logisticsName} at the service.`,
    };
  } catch (error) {
    // Past the cart at the service: only a new service order can change it.
    if (error instanceof SvcOrderStateError)
      return { ok: false, error: "past the cart", placeAgain: true };
    if (error instanceof SvcError && !error.retryable) {
      return { ok: false, error: `The service refused the change: ${errorFields(error).message}` };
    }
    return {
      ok: false,
      error: `The service could not be reached: ${errorFields(error).message}. Try again.`,
    };
  }
}

/**
 * Places the order again as a new service order (`…-R<n>`): the current one is recorded as
 * replaced and left unpaid; the order goes back to RECEIVED with the corrections.
 */
export async function placeAgainAsNew(
  deps: FulfilmentDeps,
  orderId: string,
  o: { reason: string; recipient?: Recipient; logisticName?: string | null },
): Promise<RepairResult> {
  const db = deps.prisma;
  const done = await db.$transaction(async (tx) => {
    const cur = await tx.shopOrder.findUniqueOrThrow({ where: { id: orderId } });
    if (PAID_STATES.includes(cur.state as never) || cur.state === "PAYING") return null;
    const attempt = cur.placeAttempt + 1;
    const number = replacementNumber(orderNumberFor(cur.shopDomain, cur.shopifyOrderId), attempt);
    await tx.replacedServiceOrder.create({
      data: {
        orderId: cur.id,
        svcOrderId: cur.svcOrderId,
        orderNumber: cur.orderNumber,
        reason: o.reason.slice(0, 500),
      },
    });
    await transition(tx, cur.id, {
      to: "RECEIVED",
      reason: null,
      message: null,
      timeline: {
        step: "repair",
        outcome: "info",
        message: `Repaired by the merchant (${o.reason}): placed again as a new service order ${number}; the old one ${cur.svcOrderId ?? cur.orderNumber} is left unpaid and replaced.`,
      },
      set: {
        placeAttempt: attempt,
        orderNumber: number,
        svcOrderId: null,
        shipmentOrderId: null,
        payId: null,
        amount: null,
        paymentBatchId: null,
        placedAt: null,
        payRequestedAt: null,
        flag: null,
        ...(o.recipient ? { recipient: o.recipient } : {}),
        // A new method is pinned; otherwise the rules choose again (the destination may differ).
        logisticName: o.logisticName ?? null,
        shippingCost: null,
      },
    });
    return { old: cur, number };
  });
  if (!done)
    return {
      ok: false,
      error: "The order is paid or being paid: it can no longer be placed again.",
    };
  await schedulePlace(db, {
    orderId,
    shopDomain: done.old.shopDomain,
    key: `again:${done.number}`,
  });
  return {
    ok: true,
    outcome: "placed_again",
    message: `Placed again as a new service order (${done.number}).`,
  };
}
