/**
 * The Inventory page's current view (products, stock by warehouse or stock records), or a
 * sentence when it has nothing to show.
 */
import { BlockStack, Box, Text } from "@shopify/polaris";
import { KeyboardDataTable } from "../../components/KeyboardDataTable";
import { shopDateTime } from "../../orders/shop-time";
import { ProductsView } from "./ProductsView";
import { StockView } from "./StockView";
import type { InventoryView, WithParam } from "./types";

export function ViewBody({
  view,
  withParam,
  searched,
  timeZone,
}: {
  view: InventoryView;
  withParam: WithParam;
  searched: boolean;
  /** The shop's zone, for the records' times. */
  timeZone: string | null;
}) {
  if (view.tab === "products") {
    if (view.products.length === 0) return <Empty searched={searched} what="products" />;
    return <ProductsView view={view} withParam={withParam} />;
  }
  if (view.tab === "stock") {
    if (view.rows.length === 0) return <Empty searched={searched} what="stock lines" />;
    return <StockView view={view} withParam={withParam} />;
  }
  if (view.records.length === 0) return <Empty searched={searched} what="records" />;
  return <RecordsView view={view} timeZone={timeZone} />;
}

function Empty({ searched, what }: { searched: boolean; what: string }) {
  return (
    <Box padding="600">
      <BlockStack gap="200" inlineAlign="center">
        <Text as="h2" variant="headingMd">
          {searched ? `No ${what} match` : `No ${what} yet`}
        </Text>
        <Text as="p" tone="subdued" alignment="center">
          {searched
            ? "Try another search."
            : "Stock you send to the service's warehouses (or buy into them) shows here."}
        </Text>
      </BlockStack>
    </Box>
  );
}

function RecordsView({
  view,
  timeZone,
}: {
  view: Extract<InventoryView, { tab: "records" }>;
  timeZone: string | null;
}) {
  return (
    <div style={{ overflowX: "auto" }}>
      <KeyboardDataTable
        label="Stock records"
        columnContentTypes={["text", "text", "numeric", "text", "text", "numeric"]}
        headings={["When", "What", "Change", "Warehouse", "Order", "Available after"]}
        rows={view.records.map((r) => [
          shopDateTime(r.at, timeZone),
          r.what,
          r.change > 0 ? `+${r.change}` : String(r.change),
          r.warehouse,
          r.order ?? "—",
          r.available,
        ])}
      />
    </div>
  );
}
