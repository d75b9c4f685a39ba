import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData, useRevalidator, useSearchParams } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Page,
  Pagination,
  Tabs,
  Text,
} from "@shopify/polaris";
import { useEffect } from "react";
import { requireAdmin } from "../admin/context.server";
import { ORDER_STATES } from "../admin/order-states";
import { listOrders } from "../admin/orders.server";
import { PlaceOrderButton, SandboxCard } from "../components/SandboxActions";
import { STATE_LABELS, StateBadge } from "../components/StateBadge";
import { formatDateTime } from "../components/format";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const search = new URL(request.url).searchParams;
  return { ...(await listOrders(prisma, shop, search)), sandbox };
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
        <Card padding="0">
          <Tabs tabs={tabs} selected={selected} onSelect={onSelect} />
          {data.orders.length === 0 ? (
            <EmptyState heading="No orders here" image="">
              <p>Orders appear as soon as the shop sends them.</p>
            </EmptyState>
          ) : (
            <IndexTable
              resourceName={{ singular: "order", plural: "orders" }}
              itemCount={data.orders.length}
              selectable={false}
              headings={[
                { title: "Order" },
                { title: "State" },
                { title: "Why" },
                { title: "Service order" },
                { title: "Tracking" },
                { title: "Updated" },
              ]}
            >
              {data.orders.map((o, i) => (
                <IndexTable.Row id={o.id} key={o.id} position={i}>
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
                      {o.flag ?? o.reasonMessage ?? ""}
                    </Text>
                  </IndexTable.Cell>
                  <IndexTable.Cell>{o.svcOrderId ?? "—"}</IndexTable.Cell>
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
