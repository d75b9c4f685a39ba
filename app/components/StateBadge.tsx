import { Badge } from "@shopify/polaris";
import { STATE_LABELS, STATE_TONES } from "../admin/order-states";

export function StateBadge({ state }: { state: string }) {
  const tone = STATE_TONES[state];
  return <Badge tone={tone === "neutral" ? undefined : tone}>{STATE_LABELS[state] ?? state}</Badge>;
}
