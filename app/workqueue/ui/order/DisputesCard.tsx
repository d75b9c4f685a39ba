/**
 * The order page's Disputes card, once the order is paid at the service: its disputes with the
 * supplier (status, unread message, reason, money) and the way to open a new one.
 */
import {
  Badge,
  BlockStack,
  Button,
  Card,
  InlineStack,
  Link as PolarisLink,
  Text,
} from "@shopify/polaris";
import { dotted, type OrderDetail, type OrderDisputes } from "./shared";

export function DisputesCard({ order, disputes }: { order: OrderDetail; disputes: OrderDisputes }) {
  // A dispute is about a paid service order: before that there is nothing to dispute.
  if (!(order.paidAt && order.svcOrderId)) return null;
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="h2" variant="headingMd">
            Disputes
          </Text>
          <Button url={`/app/disputes/new?order=${encodeURIComponent(order.id)}`}>
            Open a dispute
          </Button>
        </InlineStack>
        {disputes.length === 0 ? (
          <Text as="p" tone="subdued">
            A parcel damaged, wrong or lost? Ask the supplier for a refund or a reissue.
          </Text>
        ) : (
          <BlockStack gap="100">
            {disputes.map((d) => (
              <InlineStack key={d.id} gap="200" blockAlign="center">
                <PolarisLink url={`/app/disputes/${d.id}`}>
                  {d.svcDisputeId ? `Dispute ${d.svcDisputeId}` : "Dispute (being sent)"}
                </PolarisLink>
                <Badge tone={d.closed ? undefined : "attention"}>{d.status}</Badge>
                {d.unread ? <Badge tone="info">New message</Badge> : null}
                <Text as="span" tone="subdued">
                  {dotted([d.reason, d.money ? `${d.money} USD` : null])}
                </Text>
              </InlineStack>
            ))}
          </BlockStack>
        )}
      </BlockStack>
    </Card>
  );
}
