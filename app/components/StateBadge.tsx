import { Badge } from "@shopify/polaris";
import { stateLabelOf } from "../orders/states";

/** An order's state as the merchant reads it; with its reason, a review-window wait is "Scheduled". */
export function StateBadge({ state, reasonCode }: { state: string; reasonCode?: string | null }) {
  const { label, tone } = stateLabelOf({ state, reasonCode: reasonCode ?? null });
  return <Badge tone={tone === "neutral" ? undefined : tone}>{label}</Badge>;
}
