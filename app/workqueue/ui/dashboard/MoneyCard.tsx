/** The dashboard's money for a period: orders received, paid to the service, revenue, margin. */
import { Link } from "@remix-run/react";
import { BlockStack, Card, InlineGrid, InlineStack, Text } from "@shopify/polaris";
import { PERIODS } from "../../../orders/shop-time";
import type { DashboardData } from "./types";

/** The period's figures, with links to the other periods. */
export function MoneyCard({ money }: { money: DashboardData["money"] }) {
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <Text as="h2" variant="headingMd">
            {`Money, last ${money.days} days`}
          </Text>
          <nav aria-label="Period">
            <InlineStack gap="200">
              {PERIODS.map((p) => (
                <Link
                  key={p}
                  to={`?period=${p}`}
                  aria-current={p === money.days ? "page" : undefined}
                  style={{ fontWeight: p === money.days ? 650 : 450 }}
                >
                  {`${p} days`}
                </Link>
              ))}
            </InlineStack>
          </nav>
        </InlineStack>
        <InlineGrid columns={{ xs: 2, md: 4 }} gap="300">
          <Figure label="Orders received" value={String(money.received)} />
          <Figure
            label={`Paid to the service (${money.paid} orders)`}
            value={`${money.spendUsd} USD`}
          />
          <Figure
            label="Shop revenue of those orders"
            value={
              money.revenue.length
                ? money.revenue.map((r) => `${r.amount} ${r.currency}`).join(" + ")
                : "—"
            }
          />
          <Figure
            label={`Margin (${money.marginOrders} orders with a known rate)`}
            value={money.marginUsd !== null ? `${money.marginUsd} USD` : "—"}
          />
        </InlineGrid>
      </BlockStack>
    </Card>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <BlockStack gap="050">
      <Text as="p" tone="subdued">
        {label}
      </Text>
      <Text as="p" variant="headingLg" numeric>
        {value}
      </Text>
    </BlockStack>
  );
}
