/**
 * The pipeline's words as the merchant reads them (shared by server and browser code): step
 * names, problem flags and payment states become plain words; webhook topics and machine times
 * in messages become what they mean. Codes and request ids stay out of the sentences (the pages
 * keep them behind a "Technical details" disclosure, for support).
 */
import { shopDateTime } from "./shop-time";

const STEP_WORDS: Record<string, string> = {
  received: "Received",
  schedule: "Scheduled",
  hold: "Held",
  release: "Released",
  retry: "Retried",
  cancel: "Cancelled",
  shipping: "Shipping method",
  create: "Sent to the service",
  connected: "Products connected",
  guard: "Cost check",
  cart: "Payment",
  confirm: "Payment",
  parent: "Payment",
  pay: "Payment",
  sandbox: "Test tracking",
  shipped: "Shipped",
  tracking: "Tracking",
  fulfil: "Tracking sent to the shop",
  delivered: "Delivered",
  proof_of_delivery: "Proof of delivery",
  "after-payment": "After payment",
  repair: "Repair",
  dispute: "Dispute",
};

/** A timeline step ("pay:carted", "fulfil") in plain words. */
export function stepWords(step: string): string {
  return STEP_WORDS[step.split(":")[0] ?? ""] ?? "Update";
}

const FLAG_WORDS: Record<string, string> = {
  cancelled_after_payment:
    "Cancelled after the service order was paid: it will still ship. Open a dispute or contact the service.",
  cancel_requested:
    "Cancelled while its payment was under way: if the payment went through, open a dispute.",
  fulfilment_conflict: "The shop's fulfilment of this order does not match the service's parcels.",
  address_changed:
    "The shipping address was changed in the shop after the order went to the service.",
  parcel_abnormal: "The carrier reports a problem with the parcel.",
  account_disconnected:
    "The service account this order was placed with is not connected: connect it again in Settings.",
};

/** A problem flag in plain words (an unknown one is named as a problem to look at, not by code). */
export function flagWords(flag: string | null): string | null {
  if (!flag) return null;
  return FLAG_WORDS[flag] ?? "Something after payment needs you: see the timeline.";
}

const BATCH_WORDS: Record<string, string> = {
  open: "waiting to be paid",
  carted: "being paid",
  confirming: "being paid",
  parented: "being paid",
  paying: "being paid",
  paid: "paid",
  failed: "payment refused",
  short: "waiting for the balance",
};

/** A payment batch's state in plain words. */
export function batchWords(state: string): string {
  return BATCH_WORDS[state] ?? "being paid";
}

const TOPICS: Array<[RegExp, string]> = [
  [/\(orders\/paid\)/g, "(when paid)"],
  [/\(orders\/create\)/g, "(when created)"],
  [/\borders\/(paid|create|updated|cancelled)\b/g, "the shop's order update"],
];

const ISO = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g;

/**
 * A pipeline message in plain words: webhook topics named by what they mean, machine times
 * ("2026-11-27T12:35:12.654Z") as the shop's date and time.
 */
export function plainMessage(text: string | null, timeZone: string | null): string {
  if (!text) return "";
  let out = text;
  for (const [re, words] of TOPICS) out = out.replace(re, words);
  return out.replace(ISO, (iso) => shopDateTime(iso, timeZone));
}
