/** The disputes list's table: one row a dispute, condensed to a stacked cell on small screens. */
import { Link } from "@remix-run/react";
import { Badge, BlockStack, IndexTable, InlineStack, Text, useBreakpoints } from "@shopify/polaris";
import { shopDateTime } from "../../orders/shop-time";
import type { DisputeRow } from "./types";

function StatusBadge({ d }: { d: DisputeRow }) {
  const tone = d.closed ? (d.outcome === "rejected" ? "critical" : undefined) : "attention";
  return (
    <InlineStack gap="100" wrap>
      <Badge tone={tone}>{d.status}</Badge>
      {d.outcome ? <Badge tone="success">{d.outcome}</Badge> : null}
      {d.unread ? <Badge tone="info">New message</Badge> : null}
    </InlineStack>
  );
}

function Title({ d }: { d: DisputeRow }) {
  return (
    <Link to={`/app/disputes/${d.id}`} data-primary-link>
      {d.svcDisputeId ? `Dispute ${d.svcDisputeId}` : "Dispute (being sent)"}
    </Link>
  );
}

const usd = (v: string | null) => (v ? `${v} USD` : "—");

/** A dispute on a small screen: its title and refund, its order and reason, its status. */
function StackedCell({ d }: { d: DisputeRow }) {
  return (
    <div style={{ padding: "12px 16px" }}>
      <BlockStack gap="100">
        <InlineStack align="space-between" gap="200">
          <Title d={d} />
          <Text as="span" numeric>
            {usd(d.money)}
          </Text>
        </InlineStack>
        <Text as="span" tone="subdued">
          {`${d.orderName ?? d.orderNumber ?? "Order not in the app"} · ${d.reason ?? "—"}`}
        </Text>
        <StatusBadge d={d} />
      </BlockStack>
    </div>
  );
}

/** A dispute's cells, one a column. */
function Cells({ d, timeZone }: { d: DisputeRow; timeZone: string | null }) {
  return (
    <>
      <IndexTable.Cell>
        <Title d={d} />
      </IndexTable.Cell>
      <IndexTable.Cell>
        {d.orderId ? (
          <Link to={`/app/orders/${d.orderId}`}>{d.orderName ?? "Order"}</Link>
        ) : (
          (d.orderNumber ?? "—")
        )}
      </IndexTable.Cell>
      <IndexTable.Cell>
        <StatusBadge d={d} />
      </IndexTable.Cell>
      <IndexTable.Cell>{d.reason ?? "—"}</IndexTable.Cell>
      <IndexTable.Cell>{d.expect ?? "—"}</IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {usd(d.money)}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>{shopDateTime(d.openedAt, timeZone)}</IndexTable.Cell>
      <IndexTable.Cell>{shopDateTime(d.lastMessageAt, timeZone)}</IndexTable.Cell>
    </>
  );
}

/**
 * The page's disputes: dispute, order, status, reason, asked, refund, opened, last message (times
 * in the shop's zone).
 */
export function DisputesTable({
  disputes,
  timeZone,
}: {
  disputes: DisputeRow[];
  timeZone: string | null;
}) {
  const { smDown } = useBreakpoints();
  return (
    <IndexTable
      resourceName={{ singular: "dispute", plural: "disputes" }}
      itemCount={disputes.length}
      selectable={false}
      condensed={smDown}
      headings={[
        { title: "Dispute" },
        { title: "Order" },
        { title: "Status" },
        { title: "Reason" },
        { title: "Asked" },
        { title: "Refund", alignment: "end" },
        { title: "Opened" },
        { title: "Last message" },
      ]}
    >
      {disputes.map((d, i) => (
        <IndexTable.Row id={d.id} key={d.id} position={i}>
          {smDown ? <StackedCell d={d} /> : <Cells d={d} timeZone={timeZone} />}
        </IndexTable.Row>
      ))}
    </IndexTable>
  );
}
