/** The Retry / Hold / Release / Cancel buttons of the order page, handed to the pipeline. */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { cancelOrder, holdOrder, releaseOrder, retryOrder } from "../fulfilment/actions.server";
import { type FulfilmentDeps, productionDeps } from "../orders/deps.server";
import { dismissProblem } from "../fulfilment/after-payment.server";
import { requestPayment } from "../fulfilment/pay-now.server";
import { isOrderState, PAID_STATES } from "../orders/states";
import { parseForm } from "../page-kit/forms.server";

const actionForm = z.object({
  intent: z.enum(["retry", "hold", "release", "cancel", "pay-now", "dismiss"], "Unknown action"),
  note: z.string().trim().max(200, "At most 200 characters").optional(),
});

export type OrderActionResult =
  | { ok: true; intent: string; message: string }
  | { ok: false; intent: string; errors: Record<string, string> };

export async function orderAction(
  db: PrismaClient,
  shop: string,
  orderId: string,
  form: FormData,
): Promise<OrderActionResult> {
  const parsed = parseForm(actionForm, form);
  const intent = String(form.get("intent") ?? "");
  if (!parsed.ok) return { ok: false, intent, errors: parsed.errors };
  const deps = await productionDeps(db);
  if (parsed.data.intent === "pay-now") return payNow(deps, shop, [orderId]);
  if (parsed.data.intent === "dismiss") {
    const d = await dismissProblem(deps, orderId, { shopDomain: shop });
    return d.ok
      ? { ok: true, intent, message: "Marked as handled." }
      : { ok: false, intent, errors: { form: d.error } };
  }
  const r = await runOrderAction(deps, shop, orderId, parsed.data.intent, parsed.data.note);
  return r.ok
    ? { ok: true, intent, message: r.message }
    : { ok: false, intent, errors: { form: r.error } };
}

export type SingleIntent = "retry" | "hold" | "release" | "cancel";

/** One order's Retry, Hold, Release or Cancel (the order page, and bulk runs, one by one). */
export async function runOrderAction(
  deps: FulfilmentDeps,
  shop: string,
  orderId: string,
  intent: SingleIntent,
  note?: string,
): Promise<{ ok: true; message: string } | { ok: false; error: string }> {
  const opts = { shopDomain: shop };
  const before = await deps.prisma.shopOrder.findFirst({
    where: { id: orderId, shopDomain: shop },
    select: { state: true, reasonCode: true, reasonMessage: true },
  });
  const r =
    intent === "retry"
      ? await retryOrder(deps, orderId, opts)
      : intent === "hold"
        ? await holdOrder(deps, orderId, { ...opts, note })
        : intent === "release"
          ? await releaseOrder(deps, orderId, opts)
          : await cancelOrder(deps, { orderId }, { ...opts, source: "merchant" });
  if (!r.ok) return { ok: false, error: r.error };
  const refusedBefore = before && REFUSALS.includes(before.reasonCode ?? "") ? before : null;
  const unchanged = refusedBefore ? !(await changedSinceRefusal(deps, orderId)) : false;
  return { ok: true, message: afterAction(intent, r, refusedBefore, unchanged) };
}

/** Failures where the service said no (not an outage): they come back unless the cause is fixed. */
const REFUSALS = ["create_failed", "intercepted", "payment_failed"];

/** Was anything corrected (a repair) since the order's last error? */
async function changedSinceRefusal(deps: FulfilmentDeps, orderId: string): Promise<boolean> {
  const lastError = await deps.prisma.timelineEntry.findFirst({
    where: { orderId, outcome: "error" },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    select: { at: true, id: true },
  });
  if (!lastError) return true;
  const fixes = await deps.prisma.timelineEntry.count({
    where: { orderId, step: "repair", id: { gt: lastError.id } },
  });
  return fixes > 0;
}

/**
 * What the merchant reads after an action: what happens now and, when the cause that stopped
 * the order is still there, that cause, in plain words (never "Done" for nothing done).
 */
export function afterAction(
  intent: SingleIntent,
  r: { state: string; note?: string },
  refused: { reasonMessage: string | null } | null,
  unchanged: boolean,
): string {
  if (refused && unchanged && (intent === "retry" || intent === "release")) {
    const why = (refused.reasonMessage ?? "")
      .replace(/\s*Correct the cause, then Retry\.?$/, "")
      .replace(/\.?$/, ".");
    return `Sent again, but nothing was corrected since the service refused it${why.length > 1 ? `: ${why}` : "."} It will most likely be refused again: correct the address or the shipping method in Repair first.`;
  }
  if (intent === "cancel") {
    return r.state === "CANCELLED"
      ? "Cancelled: the order leaves the pipeline and is not sent to the service."
      : `The order could not be cancelled at once${r.note?.includes("paid") ? ": it is already paid at the service and will still ship" : ": its payment is under way"}. It is flagged for you to follow up.`;
  }
  if (intent === "hold") return "Held: the order waits here until you release it.";
  if (r.note) return r.note;
  if (isOrderState(r.state) && PAID_STATES.includes(r.state)) {
    return "Its tracking is checked again now.";
  }
  switch (r.state) {
    case "RECEIVED":
      return "It is being placed now: the timeline shows the outcome in a moment.";
    case "CREATED":
      return "It goes into the next payment from the service balance.";
    default:
      return "It goes on from where it stopped: the timeline shows the outcome in a moment.";
  }
}

async function payNow(
  deps: FulfilmentDeps,
  shop: string,
  orderIds: string[],
): Promise<OrderActionResult> {
  const r = await requestPayment(deps, orderIds, { shopDomain: shop });
  if (r.requested === 0) {
    const why = r.refused[0]?.why ?? "not found";
    return {
      ok: false,
      intent: "pay-now",
      errors: {
        form: `Nothing to pay: the order ${why}. Only orders created at the service and waiting for payment can be paid.`,
      },
    };
  }
  const left = r.refused.length ? ` ${r.refused.length} left out (not waiting for payment).` : "";
  return {
    ok: true,
    intent: "pay-now",
    message: `${r.requested} order${r.requested === 1 ? " is" : "s are"} being paid now.${left}`,
  };
}

/** The bulk Pay now of the orders list: the selected order ids. */
export async function payNowAction(
  db: PrismaClient,
  shop: string,
  form: FormData,
): Promise<OrderActionResult> {
  if (form.get("intent") !== "pay-now") {
    return {
      ok: false,
      intent: String(form.get("intent") ?? ""),
      errors: { form: "Unknown action" },
    };
  }
  const ids = form
    .getAll("orderId")
    .map(String)
    .filter((x) => /^[\w-]{1,64}$/.test(x));
  if (ids.length === 0)
    return { ok: false, intent: "pay-now", errors: { form: "Select the orders to pay." } };
  return payNow(await productionDeps(db), shop, ids);
}
