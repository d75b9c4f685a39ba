/** The dashboard's latest order problems, or a word that nothing needs the merchant. */
import { Link } from "@remix-run/react";
import { BlockStack, Card, InlineStack, Text } from "@shopify/polaris";
import { shopDateTime } from "../../../orders/shop-time";
import { StateBadge } from "../../../components/StateBadge";
import type { DashboardData } from "./types";

/** Whether any warning shows above the cards (then "nothing needs you" would be wrong). */
export function anyWarning(d: Pick<DashboardData, "warnings" | "authProblem">): boolean {
  const w = d.warnings;
  return (
    w.outageHeld > 0 ||
    w.disconnectedInFlight > 0 ||
    w.webhooksMissing ||
    w.webhooksSkipping ||
    w.protectedDataHeld > 0 ||
    w.balanceBelowWaiting ||
    w.balanceBelowThreshold ||
    w.shortBalanceHeld > 0 ||
    Boolean(d.authProblem)
  );
}

/** The five problems updated last, each a link to its order. */
export function ProblemsCard({
  problems,
  timeZone,
  warned,
}: {
  problems: DashboardData["problems"];
  timeZone: string | null;
  warned: boolean;
}) {
  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between">
          <Text as="h2" variant="headingMd">
            Latest problems
          </Text>
          <Link to="/app/orders?view=attention">All that need attention</Link>
        </InlineStack>
        {problems.length === 0 ? (
          <Text as="p" tone="subdued">
            {warned ? "No order problems; see the warnings above." : "Nothing needs you."}
          </Text>
        ) : (
          problems.map((p) => (
            <InlineStack key={p.id} gap="200" blockAlign="center">
              <Link to={`/app/orders/${p.id}`}>{p.name}</Link>
              <StateBadge state={p.state} />
              <Text as="span">{p.reason}</Text>
              <Text as="span" tone="subdued">
                {shopDateTime(p.updatedAt, timeZone)}
              </Text>
            </InlineStack>
          ))
        )}
      </BlockStack>
    </Card>
  );
}
