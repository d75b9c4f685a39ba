/** The dashboard's health: the live balance, the service connection, the connected products. */
import { Await, Link } from "@remix-run/react";
import {
  Badge,
  BlockStack,
  Card,
  InlineStack,
  SkeletonBodyText,
  SkeletonDisplayText,
  Text,
} from "@shopify/polaris";
import { Suspense } from "react";
import { shopDateTime } from "../../../orders/shop-time";
import type { DashboardData, Live } from "./types";

/** The balance at the service, a skeleton until the live call answers. */
export function BalanceCard({ live }: { live: Promise<Live> }) {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Balance
        </Text>
        <Suspense
          fallback={
            <BlockStack gap="200">
              <SkeletonDisplayText size="medium" />
              <SkeletonBodyText lines={1} />
            </BlockStack>
          }
        >
          <Await resolve={live} errorElement={<Text as="p">The balance could not be read.</Text>}>
            {(b: Live) => (
              <BlockStack gap="100">
                <Text as="p" variant="headingXl">
                  {b.amount != null ? `${b.amount} USD` : "—"}
                </Text>
                {b.error ? (
                  <Text as="p" tone="subdued">
                    {b.outage ? "The service is not answering right now." : b.error}
                  </Text>
                ) : null}
              </BlockStack>
            )}
          </Await>
        </Suspense>
      </BlockStack>
    </Card>
  );
}

/** The service account: connected, its token, its webhooks, the last event it sent. */
export function ConnectionCard({
  account,
  timeZone,
}: {
  account: DashboardData["account"];
  timeZone: string | null;
}) {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Connection
        </Text>
        <InlineStack gap="100" wrap>
          <Badge tone={account.connected ? "success" : "critical"}>
            {account.connected ? "Account connected" : "Not connected"}
          </Badge>
          <Badge tone={account.tokenValid ? "success" : "attention"}>
            {account.tokenValid ? "Token valid" : "No valid token"}
          </Badge>
          <Badge tone={account.webhookRegisteredAt ? "success" : "warning"}>
            {account.webhookRegisteredAt ? "Webhooks registered" : "Webhooks missing"}
          </Badge>
        </InlineStack>
        <Text as="p" tone="subdued">
          Last event:{" "}
          {account.lastEventAt
            ? `${account.lastEventTopic} at ${shopDateTime(account.lastEventAt, timeZone)}`
            : "none yet"}
        </Text>
        <Link to="/app/settings">Settings</Link>
      </BlockStack>
    </Card>
  );
}

/** How many of the shop's variants are connected to the catalog. */
export function ProductsCard({ connections }: { connections: number }) {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Products
        </Text>
        <Text as="p" variant="headingXl">
          {connections}
        </Text>
        <Text as="p" tone="subdued">
          variants connected to the catalog
        </Text>
        <Link to="/app/products">Products</Link>
      </BlockStack>
    </Card>
  );
}
