/**
 * The dashboard: the warnings that need the merchant, the pipeline, money, health and the latest
 * problems. The work is app/workqueue/dashboard.server.ts; the cards are app/workqueue/ui/dashboard/.
 */
import { defer, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { InlineGrid, Layout, Page, Text } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { dashboardPage } from "../workqueue/dashboard.server";
import { BalanceCard, ConnectionCard, ProductsCard } from "../workqueue/ui/dashboard/HealthCards";
import { MoneyCard } from "../workqueue/ui/dashboard/MoneyCard";
import { anyWarning, ProblemsCard } from "../workqueue/ui/dashboard/ProblemsCard";
import {
  AuthProblemBanner,
  ShippingUnsetBanner,
  WelcomeCard,
} from "../workqueue/ui/dashboard/SetupCards";
import { StateCountsCard } from "../workqueue/ui/dashboard/StateCountsCard";
import { WarningBanners } from "../workqueue/ui/dashboard/WarningBanners";
import { PlaceOrderButton, SandboxCard } from "../sandbox/ui/SandboxActions";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const page = await dashboardPage(prisma, shop, new URL(request.url).searchParams);
  // The balance is a live service call: the page does not wait for it (a skeleton stands in).
  return defer({ shop, sandbox, ...page });
};

export default function Dashboard() {
  const d = useLoaderData<typeof loader>();
  return (
    <Page title="Dashboard">
      <Layout>
        <Layout.Section>
          <WarningBanners w={d.warnings} live={d.live} />
        </Layout.Section>
        {d.authProblem ? (
          <Layout.Section>
            <AuthProblemBanner problem={d.authProblem} />
          </Layout.Section>
        ) : null}
        {d.shippingUnset ? (
          <Layout.Section>
            <ShippingUnsetBanner />
          </Layout.Section>
        ) : null}
        {!d.account.connected ? (
          <Layout.Section>
            <WelcomeCard />
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
          <StateCountsCard d={d} />
        </Layout.Section>
        <Layout.Section>
          <MoneyCard money={d.money} />
        </Layout.Section>
        <Layout.Section>
          <InlineGrid columns={{ xs: 1, md: 3 }} gap="400">
            <BalanceCard live={d.live} />
            <ConnectionCard account={d.account} timeZone={d.timeZone} />
            <ProductsCard connections={d.connections} />
          </InlineGrid>
        </Layout.Section>
        <Layout.Section>
          <ProblemsCard problems={d.problems} timeZone={d.timeZone} warned={anyWarning(d)} />
        </Layout.Section>
      </Layout>
    </Page>
  );
}
