/** The products page's sync card: the last stock and price changes, and "sync now". */
import { BlockStack, Button, Card, InlineStack, Text } from "@shopify/polaris";
import { PostOnce } from "../../components/SubmitOnce";
import { shopDateTime } from "../../orders/shop-time";
import type { ProductsData } from "./types";

const CHANGE_TEXT: Record<string, string> = {
  stock: "Stock set",
  price: "Price set",
  removed: "Removed by the supplier: stock 0",
  cost_change: "Cost changed (price kept)",
};

/** The stock and price sync: run it now, and what it changed last (in the shop's time). */
export function SyncCard({
  changes,
  busy,
  disabled,
  timeZone,
}: {
  changes: ProductsData["changes"];
  busy: boolean;
  disabled: boolean;
  timeZone: string | null;
}) {
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <BlockStack gap="100">
            <Text as="h2" variant="headingMd">
              Stock and prices
            </Text>
            <Text as="p" tone="subdued">
              Kept in step with the supplier as it reports changes, and in full every 6 hours: stock
              at your location, prices by your pricing rule when the cost moves.
            </Text>
          </BlockStack>
          <PostOnce>
            <input type="hidden" name="intent" value="sync-now" />
            <Button submit disabled={busy || disabled}>
              Sync now
            </Button>
          </PostOnce>
        </InlineStack>
        {changes.length ? (
          <BlockStack gap="100">
            {changes.map((c) => (
              <InlineStack key={c.id} gap="200" wrap>
                <Text as="span" variant="bodySm" tone="subdued">
                  {shopDateTime(c.at, timeZone)}
                </Text>
                <Text as="span" variant="bodySm">
                  {CHANGE_TEXT[c.kind] ?? c.kind} · {c.variantName ?? "a connected variant"}
                  {c.before !== null || c.after !== null
                    ? `: ${c.before ?? "—"} → ${c.after ?? "—"}`
                    : ""}
                  {c.note ? ` (${c.note})` : ""}
                </Text>
              </InlineStack>
            ))}
          </BlockStack>
        ) : (
          <Text as="p" tone="subdued">
            No change yet.
          </Text>
        )}
      </BlockStack>
    </Card>
  );
}
