/**
 * Which of the merchant's actions fit an order in its state (shared by server and browser code):
 * the order page shows only these, and the orders list offers a bulk action when some selected
 * order fits it. The pipeline checks again when the action runs (app/fulfilment/actions.server.ts).
 */
import { isOrderState, PAID_STATES } from "../orders/states";

export const BULK_INTENTS = ["retry", "pay-now", "hold", "release", "cancel"] as const;
export type BulkIntent = (typeof BULK_INTENTS)[number];

export const BULK_LABELS: Record<BulkIntent, string> = {
  retry: "Retry",
  "pay-now": "Pay now",
  hold: "Hold",
  release: "Release",
  cancel: "Cancel",
};

export interface FitFacts {
  state: string;
  reasonCode: string | null;
  svcOrderId: string | null;
  paymentBatchId: string | null;
  flag?: string | null;
}

export function fits(intent: BulkIntent, o: FitFacts): boolean {
  switch (intent) {
    case "retry":
      // Held or failed orders go on; a paid order with a problem has its tracking checked again.
      // A scheduled order (the review window) has nothing to retry: it is placed at its time.
      return (
        (o.state === "HELD" && o.reasonCode !== "review_window") ||
        o.state === "FAILED" ||
        (isOrderState(o.state) && PAID_STATES.includes(o.state) && !!o.flag)
      );
    case "pay-now":
      return (
        Boolean(o.svcOrderId) &&
        !o.paymentBatchId &&
        (o.state === "CREATED" || (o.state === "HELD" && o.reasonCode === "short_balance"))
      );
    case "hold":
      return (
        (["RECEIVED", "HELD", "FAILED"].includes(o.state) && o.reasonCode !== "merchant_hold") ||
        (o.state === "CREATED" && !o.paymentBatchId)
      );
    case "release":
      return o.state === "HELD";
    case "cancel":
      return ["RECEIVED", "HELD", "FAILED", "CREATED"].includes(o.state);
  }
}

export function fittingActions(o: FitFacts): BulkIntent[] {
  return BULK_INTENTS.filter((i) => fits(i, o));
}
