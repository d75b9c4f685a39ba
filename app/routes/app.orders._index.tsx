import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useRevalidator,
  useSearchParams,
} from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Page,
  Pagination,
  Select,
  Text,
  useIndexResourceState,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { requireAdmin } from "../admin/context.server";
import { ORDER_STATES } from "../admin/order-states";
import { payNowAction } from "../admin/order-actions.server";
import { listOrders } from "../admin/orders.server";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { PlaceOrderButton, SandboxCard } from "../components/SandboxActions";
import { STATE_LABELS, StateBadge } from "../components/StateBadge";
import { formatDateTime } from "../components/format";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const search = new URL(request.url).searchParams;
  return { ...(await listOrders(prisma, shop, search)), sandbox };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return payNowAction(prisma, shop, await request.formData());
};

const TABS = ["ALL", "PROBLEMS", ...ORDER_STATES] as const;

export default function Orders() {
  const data = useLoaderData<typeof loader>();
  const [params, setParams] = useSearchParams();
  const revalidator = useRevalidator();
  // Orders move on their own (webhooks, jobs): refresh the list every few seconds.
  useEffect(() => {
    const t = setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") {
        revalidator.revalidate();
      }
    }, 4000);
    return () => clearInterval(t);
  }, [revalidator]);
  const selected = data.filter.problems
    ? 1
    : data.filter.state
      ? TABS.indexOf(data.filter.state)
      : 0;
  const tabs = TABS.map((t) => ({
    id: t,
    content:
      t === "ALL"
        ? "All"
        : t === "PROBLEMS"
          ? `Needs attention (${data.counts.HELD + data.counts.FAILED})`
          : `${STATE_LABELS[t]} (${data.counts[t]})`,
  }));
  const onSelect = (i: number) => {
    const t = TABS[i]!;
    const next = new URLSearchParams();
    if (t === "PROBLEMS") next.set("problems", "1");
    else if (t !== "ALL") next.set("state", t);
    setParams(next);
  };
  const placed = params.get("placed");
  const result = useActionData<typeof action>() as ActionData;
  const busy = useNavigation().state !== "idle";
  const { selectedResources, allResourcesSelected, handleSelectionChange, clearSelection } =
    useIndexResourceState(data.orders);
  const [confirming, setConfirming] = useState(false);
  const payable = data.orders.filter(
    (o) => selectedResources.includes(o.id) && o.state === "CREATED" && o.svcOrderId,
  );
  const total = payable.reduce((a, o) => a + Math.round(Number(o.amount ?? 0) * 100), 0);
  useEffect(() => {
    if (result?.ok) {
      setConfirming(false);
      clearSelection();
    }
  }, [result, clearSelection]);
  return (
    <Page title="Orders">
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
        {confirming ? (
          <Banner
            tone="warning"
            title={
              payable.length
                ? `Pay ${payable.length} order${payable.length === 1 ? "" : "s"} now?`
                : "Nothing to pay in this selection"
            }
            onDismiss={() => setConfirming(false)}
          >
            <BlockStack gap="200">
              <Text as="p">
                {payable.length
                  ? `${(total / 100).toFixed(2)} USD from the service balance. Orders not waiting for payment are left out.`
                  : "None of the selected orders waits for payment (only orders created at the service can be paid)."}
              </Text>
              <Form method="post">
                <input type="hidden" name="intent" value="pay-now" />
                {payable.map((o) => (
                  <input key={o.id} type="hidden" name="orderId" value={o.id} />
                ))}
                <InlineStack gap="200">
                  <Button submit variant="primary" disabled={busy || payable.length === 0}>
                    Pay now
                  </Button>
                  <Button onClick={() => setConfirming(false)}>Keep waiting</Button>
                </InlineStack>
              </Form>
            </BlockStack>
          </Banner>
        ) : null}
        <Card padding="0">
          {/* A labelled select, not Tabs: a dozen views overflow Polaris Tabs into a tablist
              without tabs (axe: aria-required-children), and a select reads well on a phone. */}
          <div style={{ padding: "12px 12px 4px" }}>
            <Select
              label="Show"
              labelInline
              options={tabs.map((t, i) => ({ label: t.content, value: String(i) }))}
              value={String(selected)}
              onChange={(v) => onSelect(Number(v))}
            />
          </div>
          {selectedResources.length > 0 ? (
            <div style={{ padding: "8px 12px" }}>
              <InlineStack gap="200" blockAlign="center">
                <Text as="span">{`${allResourcesSelected ? data.orders.length : selectedResources.length} selected`}</Text>
                <Button onClick={() => setConfirming(true)} disabled={busy}>
                  Pay now
                </Button>
              </InlineStack>
            </div>
          ) : null}
          {data.orders.length === 0 ? (
            <EmptyState heading="No orders here" image="">
              <p>Orders appear as soon as the shop sends them.</p>
            </EmptyState>
          ) : (
            <IndexTable
              resourceName={{ singular: "order", plural: "orders" }}
              itemCount={data.orders.length}
              selectedItemsCount={allResourcesSelected ? "All" : selectedResources.length}
              onSelectionChange={handleSelectionChange}
              headings={[
                { title: "Order" },
                { title: "State" },
                { title: "Why" },
                { title: "Service order" },
                { title: "Service cost", alignment: "end" },
                { title: "Tracking" },
                { title: "Updated" },
              ]}
            >
              {data.orders.map((o, i) => (
                <IndexTable.Row
                  id={o.id}
                  key={o.id}
                  position={i}
                  selected={selectedResources.includes(o.id)}
                >
                  <IndexTable.Cell>
                    <Link to={`/app/orders/${o.id}`} data-order-link={o.name}>
                      <Text as="span" fontWeight="semibold">
                        {o.name}
                      </Text>
                    </Link>
                  </IndexTable.Cell>
                  <IndexTable.Cell>
                    <InlineStack gap="100">
                      <StateBadge state={o.state} />
                      {o.flag ? <StateBadge state="FAILED" /> : null}
                    </InlineStack>
                  </IndexTable.Cell>
                  <IndexTable.Cell>
                    <Text as="span" tone={o.state === "FAILED" ? "critical" : undefined}>
                      {o.flag ? (o.reasonMessage ?? o.flag) : (o.reasonMessage ?? "")}
                    </Text>
                  </IndexTable.Cell>
                  <IndexTable.Cell>{o.svcOrderId ?? "—"}</IndexTable.Cell>
                  <IndexTable.Cell>
                    <Text as="span" alignment="end" numeric>
                      {o.amount ? `${o.amount} USD` : "—"}
                    </Text>
                  </IndexTable.Cell>
                  <IndexTable.Cell>{o.trackNumber ?? "—"}</IndexTable.Cell>
                  <IndexTable.Cell>{formatDateTime(o.updatedAt)}</IndexTable.Cell>
                </IndexTable.Row>
              ))}
            </IndexTable>
          )}
        </Card>
        {data.pages > 1 ? (
          <InlineStack align="center">
            <Pagination
              hasPrevious={data.filter.page > 1}
              hasNext={data.filter.page < data.pages}
              onPrevious={() => {
                const next = new URLSearchParams(params);
                next.set("page", String(data.filter.page - 1));
                setParams(next);
              }}
              onNext={() => {
                const next = new URLSearchParams(params);
                next.set("page", String(data.filter.page + 1));
                setParams(next);
              }}
            />
          </InlineStack>
        ) : null}
      </BlockStack>
    </Page>
  );
}
