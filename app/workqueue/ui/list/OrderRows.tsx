/**
 * One order of the orders list as a table row's cells: wide (a column each) or condensed (a
 * phone's stacked row).
 */
import { Link } from "@remix-run/react";
import { BlockStack, IndexTable, InlineStack, Text } from "@shopify/polaris";
import { scheduledText, shopDateTime } from "../../../orders/shop-time";
import { isScheduled } from "../../../orders/states";
import { flagWords, plainMessage } from "../../../orders/plain-words";
import { StateBadge } from "../../../components/StateBadge";
import type { Row } from "./types";

function money(value: string | null, currency: string | null): string {
  return value ? `${value} ${currency ?? ""}`.trim() : "—";
}

function OrderLink({ o }: { o: Row }) {
  return (
    <Link to={`/app/orders/${o.id}`} data-order-link={o.name}>
      <Text as="span" fontWeight="semibold">
        {o.name}
      </Text>
    </Link>
  );
}

function why(o: Row, timeZone: string | null): string {
  if (isScheduled(o)) return scheduledText(o.placeAfter, timeZone, o.createdAt);
  return plainMessage(o.reasonMessage, timeZone) || flagWords(o.flag) || "";
}

function Badges({ o }: { o: Row }) {
  return (
    <InlineStack gap="100" wrap={false}>
      <StateBadge state={o.state} reasonCode={o.reasonCode} />
      {o.flag ? <StateBadge state="FAILED" /> : null}
    </InlineStack>
  );
}

/** A wide screen's row: a cell per column of the table's headings. */
export function WideRow({ o, timeZone }: { o: Row; timeZone: string | null }) {
  const reason = why(o, timeZone);
  return (
    <>
      <IndexTable.Cell>
        <BlockStack gap="050">
          <OrderLink o={o} />
          <Text as="span" variant="bodySm" tone="subdued">
            {shopDateTime(o.createdAt, timeZone)}
          </Text>
        </BlockStack>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <BlockStack gap="050">
          <Text as="span">{o.customerName ?? "—"}</Text>
          {o.customerEmail ? (
            <Text as="span" variant="bodySm" tone="subdued">
              {o.customerEmail}
            </Text>
          ) : null}
        </BlockStack>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Badges o={o} />
      </IndexTable.Cell>
      <IndexTable.Cell>
        {/* The whole reason, wrapped: a cause cut in the middle misleads. */}
        <div data-why style={{ maxWidth: 360, minWidth: 200, whiteSpace: "normal" }}>
          <Text as="span" tone={o.state === "FAILED" || o.flag ? "critical" : undefined}>
            {reason}
          </Text>
        </div>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {money(o.shopTotal, o.currency)}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {money(o.amount, "USD")}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>{o.logisticName ?? "—"}</IndexTable.Cell>
      <IndexTable.Cell>
        <Text
          as="span"
          alignment="end"
          numeric
          tone={o.margin && o.margin.startsWith("-") ? "critical" : undefined}
        >
          {money(o.margin, "USD")}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>{o.trackNumber ?? "—"}</IndexTable.Cell>
    </>
  );
}

/** A phone's row: the order, its state and what matters most, stacked. */
export function CondensedRow({ o, timeZone }: { o: Row; timeZone: string | null }) {
  const reason = why(o, timeZone);
  return (
    <div style={{ padding: "12px 16px", width: "100%" }}>
      <BlockStack gap="100">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <OrderLink o={o} />
          <Badges o={o} />
        </InlineStack>
        <Text as="span" variant="bodySm" tone="subdued">
          {`${o.customerName ?? "—"} · ${shopDateTime(o.createdAt, timeZone)}`}
        </Text>
        <Text as="span" variant="bodySm">
          {`Total ${money(o.shopTotal, o.currency)} · Cost ${money(o.amount, "USD")}${o.margin ? ` · Margin ${o.margin} USD` : ""}`}
        </Text>
        {o.trackNumber ? (
          <Text as="span" variant="bodySm">{`Tracking ${o.trackNumber}`}</Text>
        ) : null}
        {reason ? (
          <Text
            as="span"
            variant="bodySm"
            tone={o.state === "FAILED" || o.flag ? "critical" : undefined}
          >
            {reason}
          </Text>
        ) : null}
      </BlockStack>
    </div>
  );
}
