/**
 * The order page's side column: the customer and totals, the order at the service, its payment
 * (in USD, the service's money) and its dates in the shop's time.
 */
import { BlockStack, Card, Link as PolarisLink, Text } from "@shopify/polaris";
import type { ReactNode } from "react";
import { Facts } from "../../../components/Facts";
import { rateText } from "../../../fx/format";
import { batchWords } from "../../../orders/plain-words";
import { shopDateTime } from "../../../orders/shop-time";
import type { OrderDetail } from "./shared";

/** A side card: its heading, then what it holds. */
function FactsCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          {title}
        </Text>
        {children}
      </BlockStack>
    </Card>
  );
}

/** The four side cards, in their order on the page. */
export function FactsCards({ order }: { order: OrderDetail }) {
  return (
    <>
      <CustomerCard order={order} />
      <AtServiceCard order={order} />
      <PaymentCard order={order} />
      <DatesCard order={order} />
    </>
  );
}

function CustomerCard({ order }: { order: OrderDetail }) {
  return (
    <FactsCard title="Customer and totals">
      <Facts
        items={[
          ["Customer", order.customerName ?? "withheld or none"],
          ["Email", order.customerEmail ?? "—"],
          [
            "Shop total",
            order.shopTotal ? `${order.shopTotal} ${order.currency ?? ""}`.trim() : "—",
          ],
          [
            "Service cost (goods and shipping)",
            order.amount ? `${order.amount} USD` : "not known yet",
          ],
          ["Margin", order.margin !== null ? `${order.margin} USD` : "—"],
        ]}
      />
      <PolarisLink url={order.shopifyAdminUrl} target="_blank">
        Open the order in Shopify (address and customer)
      </PolarisLink>
    </FactsCard>
  );
}

function AtServiceCard({ order }: { order: OrderDetail }) {
  return (
    <FactsCard title="At the service">
      <Facts
        items={[
          ["Order number", order.orderNumber],
          ["Service order", order.svcOrderId ?? "—"],
          ["Parent order", order.shipmentOrderId ?? "—"],
          ["Sandbox", order.isSandbox ? "yes (not charged)" : "no"],
        ]}
      />
    </FactsCard>
  );
}

function PaymentCard({ order }: { order: OrderDetail }) {
  return (
    <FactsCard title="Payment">
      <Facts
        items={[
          // The service's money is USD; the shop's prices stay in its currency.
          ["Service order total", order.amount ? `${order.amount} USD` : "not known yet"],
          [
            "Shipping",
            order.logisticName
              ? `${order.logisticName}${order.shippingCost ? ` (${order.shippingCost} USD)` : ""}`
              : "—",
          ],
          ["Exchange rate", rateText(order)],
          ["Paid", order.paidAt ? shopDateTime(order.paidAt, order.timeZone) : "not yet"],
          ["Batch", order.payment ? batchWords(order.payment.state) : "—"],
        ]}
      />
    </FactsCard>
  );
}

/** The order's dates that have happened, in the shop's time. */
function DatesCard({ order }: { order: OrderDetail }) {
  const dates = [
    ["Received", order.createdAt],
    ["Placed", order.placedAt],
    ["Paid", order.paidAt],
    ["Tracking sent", order.fulfilledAt],
    ["Delivered", order.deliveredAt],
    ["Cancelled", order.cancelledAt],
  ] as const;
  return (
    <FactsCard title="Dates">
      <Facts
        items={dates.flatMap(([k, v]) =>
          v ? [[k, shopDateTime(v, order.timeZone)] as const] : [],
        )}
      />
    </FactsCard>
  );
}
