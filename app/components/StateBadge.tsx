import { Badge } from "@shopify/polaris";
import { STATE_LABELS } from "../admin/order-states";

export { STATE_LABELS };

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

export function StateBadge({ state }: { state: string }) {
  return <Badge tone={TONES[state]}>{STATE_LABELS[state] ?? state}</Badge>;
}
