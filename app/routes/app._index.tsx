import { defer, type LoaderFunctionArgs } from "@remix-run/node";
import { Await, Link, useLoaderData } from "@remix-run/react";
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
  SkeletonBodyText,
  SkeletonDisplayText,
  Text,
} from "@shopify/polaris";
import { Suspense } from "react";
import { requireAdmin } from "../pages/context.server";
import { dashboardData, liveBalance } from "../workqueue/dashboard.server";
import { PERIODS, shopDateTime } from "../orders/shop-time";
import { STATES } from "../orders/states";
import { OrdersChart } from "../components/OrdersChart";
import { PlaceOrderButton, SandboxCard } from "../sandbox/ui/SandboxActions";
import { StateBadge } from "../components/StateBadge";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const asked = Number(new URL(request.url).searchParams.get("period"));
  const period = PERIODS.find((p) => p === asked) ?? 30;
  const data = await dashboardData(prisma, shop, Date.now(), period);
  // The balance is a live service call: the page does not wait for it (a skeleton stands in).
  return defer({ shop, sandbox, ...data, live: liveBalance(prisma, shop, data.account.connected) });
};

type Live = { amount: string | null; error: string | null; outage: boolean };

function OutageBanner({ live, held }: { live: boolean; held: number }) {
  if (!live && held === 0) return null;
  return (
    <Banner
      tone="critical"
      title="The service is not answering"
      action={
        held ? { content: "See the waiting orders", url: "/app/orders?view=attention" } : undefined
      }
    >
      <Text as="p">
        {live
          ? "The fulfilment service does not answer the app right now. "
          : "The fulfilment service did not answer the app's last attempts. "}
        {held
          ? `${held} order${held === 1 ? " waits" : "s wait"} for it and go${held === 1 ? "es" : ""} on by ${held === 1 ? "itself" : "themselves"} when it answers again. `
          : "Orders wait and go on by themselves when it answers again. "}
        Nothing is charged twice.
      </Text>
    </Banner>
  );
}

/** The balance under the merchant's threshold (Settings → Notifications). */
function LowBalanceBanner({
  below,
  w,
  amount,
}: {
  below: boolean;
  w: { lowBalanceUsd: string | null; knownBalance: string | null };
  amount?: string | null;
}) {
  if (!below) return null;
  const balance = amount ?? w.knownBalance;
  return (
    <Banner
      tone="warning"
      title="The balance is low"
      action={{ content: "Change the threshold", url: "/app/settings#notifications" }}
    >
      <Text as="p">
        {`The balance${balance !== null ? ` (${balance} USD)` : ""} is below your threshold of ${w.lowBalanceUsd} USD. Top up at the service before orders wait for it.`}
      </Text>
    </Banner>
  );
}

export default function Dashboard() {
  const d = useLoaderData<typeof loader>();
  const { account, warnings: w } = d;
  const anyWarning =
    w.outageHeld > 0 ||
    w.disconnectedInFlight > 0 ||
    w.webhooksMissing ||
    w.webhooksSkipping ||
    w.protectedDataHeld > 0 ||
    w.balanceBelowWaiting ||
    w.balanceBelowThreshold ||
    w.shortBalanceHeld > 0 ||
    Boolean(d.authProblem);
  return (
    <Page title="Dashboard">
      <Layout>
        <Layout.Section>
          <BlockStack gap="300">
            <Suspense fallback={<OutageBanner live={false} held={w.outageHeld} />}>
              <Await resolve={d.live} errorElement={null}>
                {(b: Live) => <OutageBanner live={b.outage} held={w.outageHeld} />}
              </Await>
            </Suspense>
            {w.disconnectedInFlight > 0 ? (
              <Banner
                tone="critical"
                title="Not connected to the service"
                action={{ content: "Connect", url: "/app/settings" }}
              >
                <Text as="p">
                  {`${w.disconnectedInFlight} order${w.disconnectedInFlight === 1 ? " is" : "s are"} at the service and get no tracking until the account is connected again.`}
                </Text>
              </Banner>
            ) : null}
            {w.webhooksSkipping && !w.webhooksMissing ? (
              <Banner
                tone="warning"
                title="The service's webhooks are missing deliveries"
                action={{ content: "Register them again in Settings", url: "/app/settings" }}
              >
                <Text as="p">
                  Tracking arrived that no webhook told of. The app registers the webhooks again by
                  itself; until deliveries resume, its checks every few minutes find what they miss.
                </Text>
              </Banner>
            ) : null}
            {w.webhooksMissing ? (
              <Banner
                tone="warning"
                title="The service's webhooks are not registered"
                action={{ content: "Register them in Settings", url: "/app/settings" }}
              >
                <Text as="p">
                  Tracking and order updates still arrive, through the app's checks every few
                  minutes, but later than they would by webhook.
                </Text>
              </Banner>
            ) : null}
            {w.balanceBelowWaiting || w.shortBalanceHeld > 0 ? (
              <Banner tone="warning" title="The balance is too low">
                <Text as="p">
                  {`Orders waiting for payment cost ${w.waitingCost} USD${w.knownBalance !== null ? `; the balance last seen is ${w.knownBalance} USD` : ""}. Top up at the service: they are paid automatically once it covers them.`}
                </Text>
              </Banner>
            ) : w.lowBalanceUsd ? (
              <Suspense fallback={<LowBalanceBanner below={w.balanceBelowThreshold} w={w} />}>
                <Await resolve={d.live} errorElement={null}>
                  {(b: Live) => (
                    <LowBalanceBanner
                      below={
                        b.amount !== null
                          ? Number(b.amount) < Number(w.lowBalanceUsd)
                          : w.balanceBelowThreshold
                      }
                      w={w}
                      amount={b.amount}
                    />
                  )}
                </Await>
              </Suspense>
            ) : null}
            {w.protectedDataHeld > 0 ? (
              <Banner tone="warning" title="Shopify withholds customer data">
                <Text as="p">
                  {`${w.protectedDataHeld} order${w.protectedDataHeld === 1 ? " waits" : "s wait"}: the app needs protected customer data access (name, address, phone) to ship them. It is granted in the Partner Dashboard; the orders go on by themselves once it is.`}
                </Text>
              </Banner>
            ) : null}
          </BlockStack>
        </Layout.Section>
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
        </Layout.Section>
        <Layout.Section>
          <Card>
            <BlockStack gap="300">
              <InlineStack align="space-between" blockAlign="center" gap="200">
                <Text as="h2" variant="headingMd">
                  {`Money, last ${d.money.days} days`}
                </Text>
                <nav aria-label="Period">
                  <InlineStack gap="200">
                    {PERIODS.map((p) => (
                      <Link
                        key={p}
                        to={`?period=${p}`}
                        aria-current={p === d.money.days ? "page" : undefined}
                        style={{ fontWeight: p === d.money.days ? 650 : 450 }}
                      >
                        {`${p} days`}
                      </Link>
                    ))}
                  </InlineStack>
                </nav>
              </InlineStack>
              <InlineGrid columns={{ xs: 2, md: 4 }} gap="300">
                <Figure label="Orders received" value={String(d.money.received)} />
                <Figure
                  label={`Paid to the service (${d.money.paid} orders)`}
                  value={`${d.money.spendUsd} USD`}
                />
                <Figure
                  label="Shop revenue of those orders"
                  value={
                    d.money.revenue.length
                      ? d.money.revenue.map((r) => `${r.amount} ${r.currency}`).join(" + ")
                      : "—"
                  }
                />
                <Figure
                  label={`Margin (${d.money.marginOrders} orders with a known rate)`}
                  value={d.money.marginUsd !== null ? `${d.money.marginUsd} USD` : "—"}
                />
              </InlineGrid>
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
                <Suspense
                  fallback={
                    <BlockStack gap="200">
                      <SkeletonDisplayText size="medium" />
                      <SkeletonBodyText lines={1} />
                    </BlockStack>
                  }
                >
                  <Await
                    resolve={d.live}
                    errorElement={<Text as="p">The balance could not be read.</Text>}
                  >
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
                    ? `${account.lastEventTopic} at ${shopDateTime(account.lastEventAt, d.timeZone)}`
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
                <Link to="/app/orders?view=attention">All that need attention</Link>
              </InlineStack>
              {d.problems.length === 0 ? (
                <Text as="p" tone="subdued">
                  {anyWarning ? "No order problems; see the warnings above." : "Nothing needs you."}
                </Text>
              ) : (
                d.problems.map((p) => (
                  <InlineStack key={p.id} gap="200" blockAlign="center">
                    <Link to={`/app/orders/${p.id}`}>{p.name}</Link>
                    <StateBadge state={p.state} />
                    <Text as="span">{p.reason}</Text>
                    <Text as="span" tone="subdued">
                      {shopDateTime(p.updatedAt, d.timeZone)}
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
