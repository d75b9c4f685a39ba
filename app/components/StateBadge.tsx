import { Badge } from "@shopify/polaris";

type Tone = "success" | "info" | "attention" | "warning" | "critical" | "new" | undefined;

const TONES: Record<string, Tone> = {
  RECEIVED: "new",
  HELD: "warning",
  CREATED: "info",
  PAYING: "info",
  PAID: "success",
  SHIPPED: "success",
  FULFILLED: "success",
  DELIVERED: "success",
  FAILED: "critical",
  CANCELLED: undefined,
};

export const STATE_LABELS: Record<string, string> = {
  RECEIVED: "Received",
  HELD: "Held",
  CREATED: "Placed",
  PAYING: "Paying",
  PAID: "Paid",
  SHIPPED: "Shipped",
  FULFILLED: "Tracking sent",
  DELIVERED: "Delivered",
  FAILED: "Failed",
  CANCELLED: "Cancelled",
};

export function StateBadge({ state }: { state: string }) {
  return <Badge tone={TONES[state]}>{STATE_LABELS[state] ?? state}</Badge>;
}
