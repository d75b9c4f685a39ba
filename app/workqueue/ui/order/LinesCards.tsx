/**
 * The order page's lines: once placed, each line with its product, the shop's price and what the
 * service charges for it (never the selling price); before that, the lines as the shop sent them.
 */
import { BlockStack, Box, Card, InlineStack, Text, Thumbnail } from "@shopify/polaris";
import { ImageIcon } from "@shopify/polaris-icons";
import { KeyboardDataTable } from "../../../components/KeyboardDataTable";
import { itemsTotal } from "../../../fx/format";
import type { OrderDetail } from "./shared";

type Line = OrderDetail["lines"][number];

/** The lines of an order not placed yet (held before placing), from the shop's webhook. */
export function PendingLinesCard({ order }: { order: OrderDetail }) {
  if (!(order.lines.length === 0 && order.pendingLines.length > 0)) return null;
  return (
    <Card padding="0">
      <Box padding="300">
        <Text as="p" tone="subdued">
          Not placed yet: the lines as the shop sent them.
        </Text>
      </Box>
      <KeyboardDataTable
        label="Order lines from the shop"
        columnContentTypes={["text", "text", "numeric", "numeric"]}
        headings={["Item", "SKU", "Quantity", `Shop price (${order.currency ?? "shop currency"})`]}
        rows={order.pendingLines.map((l) => [
          l.variant_title ? `${l.title} — ${l.variant_title}` : l.title,
          l.sku ?? "—",
          l.quantity,
          l.price ?? "—",
        ])}
      />
    </Card>
  );
}

/** The placed order's lines, with the items total and the service's total when it is known. */
export function LinesCard({ order }: { order: OrderDetail }) {
  if (order.lines.length === 0) return null;
  return (
    <Card padding="0">
      <KeyboardDataTable
        label="Order lines"
        columnContentTypes={["text", "numeric", "numeric", "numeric", "text"]}
        headings={[
          "Item",
          "Quantity",
          `Shop price (${order.currency ?? "shop currency"})`,
          "Service cost (USD)",
          "Catalog variant",
        ]}
        rows={order.lines.map(lineRow)}
        totals={["", "", itemsTotal(order.lines), serviceTotal(order.lines), ""]}
        totalsName={{ singular: "Items total", plural: "Items total" }}
      />
    </Card>
  );
}

/** A line's cells: the product, quantity, shop price, service cost and catalog variant. */
function lineRow(l: Line) {
  return [
    <LineItem key={l.id} line={l} />,
    l.quantity,
    // What the customer pays the shop: the selling price, in the shop's currency.
    l.unitPrice,
    // What the service charges the merchant: never the selling price.
    l.serviceCost ? (
      <span key="cost" data-service-cost={l.serviceCost.total}>
        {l.serviceCost.unit
          ? `${l.serviceCost.unit} × ${l.quantity} = ${l.serviceCost.total}`
          : `${l.serviceCost.total} for ${l.quantity}`}
      </span>
    ) : (
      "not known yet"
    ),
    l.svcVid ? (
      <span key="vid" title={l.svcVid} style={{ fontFamily: "monospace" }}>
        {l.svcVid.length > 12 ? `${l.svcVid.slice(0, 8)}…` : l.svcVid}
      </span>
    ) : (
      "not connected"
    ),
  ];
}

/** The lines' service cost (USD) when every line's is known, else blank. */
export function serviceTotal(lines: Array<{ serviceCost: { total: string } | null }>): string {
  if (lines.length === 0 || lines.some((l) => !l.serviceCost)) return "";
  const cents = lines.reduce((a, l) => a + Math.round(Number(l.serviceCost!.total) * 100), 0);
  return Number.isFinite(cents) ? (cents / 100).toFixed(2) : "";
}

/** A line: the product's image, title, variant and SKU. */
function LineItem({
  line,
}: {
  line: { title: string; variantTitle: string | null; sku: string | null; image: string | null };
}) {
  return (
    <InlineStack gap="200" wrap={false} blockAlign="center">
      <Thumbnail source={line.image ?? ImageIcon} alt="" size="small" />
      <BlockStack gap="050">
        <Text as="span">{line.title}</Text>
        {line.variantTitle ? (
          <Text as="span" tone="subdued">
            {line.variantTitle}
          </Text>
        ) : null}
        <Text as="span" tone="subdued" variant="bodySm">
          {`SKU ${line.sku ?? "—"}`}
        </Text>
      </BlockStack>
    </InlineStack>
  );
}
