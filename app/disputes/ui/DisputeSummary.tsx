/** A dispute page's side cards: the summary, the items, and "Cancel dispute". */
import { BlockStack, Card, Link as PolarisLink, Text } from "@shopify/polaris";
import { ConfirmSubmit } from "../../components/ConfirmSubmit";
import { Facts } from "../../components/Facts";
import { shopDateTime } from "../../orders/shop-time";
import type { DisputeData } from "./types";

/**
 * The order, the reason, what was asked, the refund and its parts, the reissue, when opened (in
 * the shop's zone).
 */
export function SummaryCard({ d, timeZone }: { d: DisputeData; timeZone: string | null }) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Summary
        </Text>
        <Facts
          items={[
            [
              "Order",
              d.order ? (
                <PolarisLink url={`/app/orders/${d.order.id}`}>{d.order.name}</PolarisLink>
              ) : (
                (d.svcOrderId ?? "—")
              ),
            ],
            ["Reason", d.reason ?? "—"],
            ["Asked", d.expect ?? "—"],
            ["Refund", d.money ? `${d.money} USD` : "—"],
            ...d.refundParts.map((p) => [`· ${p.name}`, `${p.amount} USD`] as const),
            ...(d.replacementAmount && d.replacementAmount !== "0" && d.replacementAmount !== "0.00"
              ? ([["Reissue value", `${d.replacementAmount} USD`]] as const)
              : []),
            ["Opened", shopDateTime(d.openedAt, timeZone)],
          ]}
        />
      </BlockStack>
    </Card>
  );
}

/** The disputed items, once the service lists them. */
export function ItemsCard({ lines }: { lines: DisputeData["lines"] }) {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Items
        </Text>
        {lines.length === 0 ? (
          <Text as="p" tone="subdued">
            The service lists the items once it has the dispute.
          </Text>
        ) : (
          <ul style={{ margin: 0, paddingInlineStart: 18 }}>
            {lines.map((l, i) => (
              <li key={i}>
                <Text as="span">
                  {`${l.name}${l.quantity ? ` × ${l.quantity}` : ""}${l.price ? ` · ${l.price} USD` : ""}`}
                </Text>
              </li>
            ))}
          </ul>
        )}
      </BlockStack>
    </Card>
  );
}

/** Cancelling an open dispute, after a confirmation. */
export function CancelCard() {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="p" tone="subdued">
          Solved with the customer another way? Cancel the dispute.
        </Text>
        <ConfirmSubmit
          intent="cancel"
          label="Cancel dispute"
          title="Cancel this dispute?"
          tone="critical"
          keepLabel="Keep the dispute open"
        >
          The supplier stops working on it and no refund or reissue follows. A cancelled dispute
          cannot be opened again from here.
        </ConfirmSubmit>
      </BlockStack>
    </Card>
  );
}
