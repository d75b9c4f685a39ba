/** The dashboard's pipeline: orders per state (each a link to its list) and 14 days of orders. */
import { Link } from "@remix-run/react";
import { BlockStack, Card, InlineStack, Text } from "@shopify/polaris";
import { STATES } from "../../../orders/states";
import { OrdersChart } from "../../../components/OrdersChart";
import { StateBadge } from "../../../components/StateBadge";
import type { DashboardData } from "./types";

/** Orders by state, the scheduled ones apart, and the chart of the last 14 days. */
export function StateCountsCard({
  d,
}: {
  d: Pick<DashboardData, "counts" | "scheduled" | "days">;
}) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Orders by state
        </Text>
        <InlineStack gap="300" wrap>
          {STATES.map((s) => (
            <Link key={s} to={`/app/orders?state=${s}`} style={{ textDecoration: "none" }}>
              <BlockStack gap="050" inlineAlign="center">
                <Text as="span" variant="headingLg">
                  {d.counts[s]}
                </Text>
                <StateBadge state={s} />
              </BlockStack>
            </Link>
          ))}
          <Link to="/app/orders?view=to_place" style={{ textDecoration: "none" }}>
            <BlockStack gap="050" inlineAlign="center">
              <Text as="span" variant="headingLg">
                {d.scheduled}
              </Text>
              <StateBadge state="HELD" reasonCode="review_window" />
            </BlockStack>
          </Link>
        </InlineStack>
        <Text as="h3" variant="headingSm">
          Last 14 days
        </Text>
        <OrdersChart days={d.days} />
      </BlockStack>
    </Card>
  );
}
