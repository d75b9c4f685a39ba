import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  Text,
} from "@shopify/polaris";
import { requireAdmin } from "../admin/context.server";
import { dashboardData } from "../admin/dashboard.server";
import { ORDER_STATES } from "../admin/order-states";
import { OrdersChart } from "../components/OrdersChart";
import { PlaceOrderButton, SandboxCard } from "../components/SandboxActions";
import { StateBadge } from "../components/StateBadge";
import { formatDateTime } from "../components/format";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  return { shop, sandbox, ...(await dashboardData(prisma, shop)) };
};

export default function Dashboard() {
  const d = useLoaderData<typeof loader>();
  const { account } = d;
  return (
    <Page title="Dashboard">
      <Layout>
        {d.authProblem ? (
          <Layout.Section>
            <Banner tone="critical" title="Orders are waiting">
              <Text as="p">{d.authProblem}</Text>
            </Banner>
          </Layout.Section>
        ) : null}
        {d.shippingUnset ? (
          <Layout.Section>
            <Banner
              tone="warning"
              title="Shipping is not set up"
              action={{ content: "Set up shipping", url: "/app/settings" }}
            >
              <Text as="p">
                Orders wait until a shipping rule says how their method is chosen. One rule for
                every destination is enough to start.
              </Text>
            </Banner>
          </Layout.Section>
        ) : null}
        {!account.connected ? (
          <Layout.Section>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Welcome to Dropship Autopilot
                </Text>
                <Text as="p">
                  Connect your fulfilment service account, then connect your products to the
                  catalog: from then on every paid order is placed, paid and tracked for you.
                </Text>
                <InlineStack gap="200">
                  <Button url="/app/settings" variant="primary">
                    Connect an account
                  </Button>
                  <Button url="/app/products">Connect products</Button>
                </InlineStack>
              </BlockStack>
            </Card>
          </Layout.Section>
        ) : null}
        {d.sandbox ? (
          <Layout.Section>
            <SandboxCard>
              <PlaceOrderButton />
              <Text as="span" tone="subdued">
                Then watch it on the Orders page: received, placed, paid; “Ship it” there adds the
                tracking.
              </Text>
            </SandboxCard>
          </Layout.Section>
        ) : null}
        <Layout.Section>
          <Card>
            <BlockStack gap="300">
              <Text as="h2" variant="headingMd">
                Orders by state
              </Text>
              <InlineStack gap="300" wrap>
                {ORDER_STATES.map((s) => (
                  <Link key={s} to={`/app/orders?state=${s}`} style={{ textDecoration: "none" }}>
                    <BlockStack gap="050" inlineAlign="center">
                      <Text as="span" variant="headingLg">
                        {d.counts[s]}
                      </Text>
                      <StateBadge state={s} />
                    </BlockStack>
                  </Link>
                ))}
              </InlineStack>
              <Text as="h3" variant="headingSm">
                Last 14 days
              </Text>
              <OrdersChart days={d.days} />
            </BlockStack>
          </Card>
        </Layout.Section>
        <Layout.Section>
          <InlineGrid columns={{ xs: 1, md: 3 }} gap="400">
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Balance
                </Text>
                <Text as="p" variant="headingXl">
                  {d.balance?.amount != null ? `${d.balance.amount} USD` : "—"}
                </Text>
                {d.balance?.error ? (
                  <Text as="p" tone="subdued">
                    {d.balance.error}
                  </Text>
                ) : null}
              </BlockStack>
            </Card>
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
                    ? `${account.lastEventTopic} at ${formatDateTime(account.lastEventAt)}`
                    : "none yet"}
                </Text>
                <Link to="/app/settings">Settings</Link>
              </BlockStack>
            </Card>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Products
                </Text>
                <Text as="p" variant="headingXl">
                  {d.connections}
                </Text>
                <Text as="p" tone="subdued">
                  variants connected to the catalog
                </Text>
                <Link to="/app/products">Products</Link>
              </BlockStack>
            </Card>
          </InlineGrid>
        </Layout.Section>
        <Layout.Section>
          <Card>
            <BlockStack gap="300">
              <InlineStack align="space-between">
                <Text as="h2" variant="headingMd">
                  Latest problems
                </Text>
                <Link to="/app/orders?problems=1">All that need attention</Link>
              </InlineStack>
              {d.problems.length === 0 ? (
                <Text as="p" tone="subdued">
                  Nothing needs you.
                </Text>
              ) : (
                d.problems.map((p) => (
                  <InlineStack key={p.id} gap="200" blockAlign="center">
                    <Link to={`/app/orders/${p.id}`}>{p.name}</Link>
                    <StateBadge state={p.state} />
                    <Text as="span">{p.reason}</Text>
                    <Text as="span" tone="subdued">
                      {formatDateTime(p.updatedAt)}
                    </Text>
                  </InlineStack>
                ))
              )}
            </BlockStack>
          </Card>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
