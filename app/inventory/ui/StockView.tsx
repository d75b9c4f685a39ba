/**
 * The Inventory page's stock by warehouse: one line per SKU and warehouse with its counts, and
 * the inbound batches of the SKU chosen.
 */
import { Link } from "@remix-run/react";
import { BlockStack, Box, Card, Text } from "@shopify/polaris";
import { KeyboardDataTable } from "../../components/KeyboardDataTable";
import type { InventoryView, WithParam } from "./types";

type StockTab = Extract<InventoryView, { tab: "stock" }>;

export function StockView({ view, withParam }: { view: StockTab; withParam: WithParam }) {
  return (
    <>
      {view.batches ? <BatchesCard batches={view.batches} /> : null}
      <div>
        <KeyboardDataTable
          label="Stock by warehouse"
          columnContentTypes={[
            "text",
            "text",
            "text",
            "numeric",
            "numeric",
            "numeric",
            "numeric",
            "numeric",
            "numeric",
          ]}
          headings={[
            "SKU",
            "Product",
            "Warehouse",
            "Available",
            "In transit",
            "Locked",
            "In use",
            "In dispute",
            "Frozen",
          ]}
          rows={view.rows.map((r) => [
            <Link key={r.key} to={withParam("sku", r.sku)}>
              {r.sku}
            </Link>,
            r.variant ? `${r.name} (${r.variant})` : r.name,
            r.warehouse,
            r.available,
            r.inTransit,
            r.locked,
            r.inUse,
            r.disputed,
            r.frozen,
          ])}
        />
      </div>
    </>
  );
}

function BatchesCard({ batches }: { batches: NonNullable<StockTab["batches"]> }) {
  return (
    <Box padding="300">
      <Card>
        <BlockStack gap="200">
          <Text as="h2" variant="headingMd">
            Inbound batches
          </Text>
          <KeyboardDataTable
            label="Inbound batches"
            columnContentTypes={["text", "text", "numeric", "numeric", "numeric", "numeric"]}
            headings={["Stock order", "Warehouse", "Received", "Available", "In transit", "Locked"]}
            rows={batches.map((b) => [
              b.orderCode,
              b.warehouse,
              b.received,
              b.available,
              b.inTransit,
              b.locked,
            ])}
          />
        </BlockStack>
      </Card>
    </Box>
  );
}
