/**
 * The orders list, the work queue: its views, search, the orders and their bulk actions. The
 * work is app/workqueue/orders.server.ts (the list) and app/workqueue/bulk-orders.server.ts (the
 * bulk runs); the parts are app/workqueue/ui/list/.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Banner, BlockStack, Box, Card, Page, Text } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { bulkOrdersAction } from "../workqueue/bulk-orders.server";
import { ordersListPage, type OrderView } from "../workqueue/orders.server";
import { BulkBar } from "../workqueue/ui/list/BulkBar";
import { BulkConfirm } from "../workqueue/ui/list/BulkConfirm";
import { BulkRunCard } from "../workqueue/ui/list/BulkRunCard";
import { FilterBar } from "../workqueue/ui/list/FilterBar";
import { OrdersTable } from "../workqueue/ui/list/OrdersTable";
import { OrderViewTabs, viewHref } from "../workqueue/ui/list/OrderViewTabs";
import { useBulkSelection } from "../workqueue/ui/list/useBulkSelection";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { PlaceOrderButton, SandboxCard } from "../sandbox/ui/SandboxActions";
import { ListFooter } from "../components/ListFooter";
import { prisma } from "../db.server";
import { readForm } from "../page-kit/forms.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const search = new URL(request.url).searchParams;
  return { ...(await ordersListPage(prisma, shop, search)), sandbox };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return bulkOrdersAction(prisma, shop, await readForm(request));
};

export default function Orders() {
  const data = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const running = Boolean(data.bulk && !data.bulk.finished);
  // Orders move on their own (webhooks, jobs): refresh every few seconds, faster while a bulk
  // run works, never while the merchant types a search or confirms. A refresh keeps the
  // selection (it is kept by order id).
  useAutoRefresh({ every: running ? 1500 : 4000 });

  const placed = params.get("placed");
  const result = useActionData<typeof action>() as ActionData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const bulk = useBulkSelection(data.orders, result, navigation.state === "submitting");
  const { selected, confirming, setConfirming, once } = bulk;
  const view = (id: OrderView) => viewHref(params, id);

  return (
    <Page title="Orders" fullWidth>
      <BlockStack gap="400">
        {placed ? (
          <Banner tone="success">
            Test order {placed} placed in the shop; its webhooks were sent to the app.
          </Banner>
        ) : null}
        {data.sandbox ? (
          <SandboxCard>
            <PlaceOrderButton />
            <Text as="span" tone="subdued">
              The shop simulator creates an order and sends orders/create and orders/paid.
            </Text>
          </SandboxCard>
        ) : null}
        <FormStatus data={result} />
        {data.bulk ? <BulkRunCard run={data.bulk} /> : null}
        {confirming ? (
          <BulkConfirm
            intent={confirming}
            selected={selected}
            clientKey={once.key}
            onSubmit={once.onSubmit}
            busy={busy}
            onClose={() => setConfirming(null)}
          />
        ) : null}
        <Card padding="0">
          <OrderViewTabs current={data.filter.view} counts={data.viewCounts} href={view} />
          <Box padding="300">
            <FilterBar
              filter={data.filter}
              clearUrl={view(data.filter.view)}
              rangeError={data.rangeError}
            />
          </Box>
          {selected.length > 0 ? (
            <BulkBar
              selected={selected}
              disabled={busy || running}
              onChoose={setConfirming}
              onClear={bulk.clearSelection}
            />
          ) : null}
          <OrdersTable data={data} selection={bulk} />
        </Card>
        <ListFooter total={data.total} noun="order" page={data.filter.page} pages={data.pages} />
      </BlockStack>
    </Page>
  );
}
