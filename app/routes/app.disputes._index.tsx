import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import {
  Badge,
  BlockStack,
  Box,
  Card,
  IndexTable,
  InlineStack,
  Page,
  Select,
  Text,
  useBreakpoints,
} from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { CheckNow } from "../components/DisputeFields";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { formatDateTime } from "../components/format";
import { ListFooter } from "../components/ListFooter";
import { SearchBar } from "../components/SearchBar";
import { ViewTabs } from "../components/ViewTabs";
import { prisma } from "../db.server";
import { runDisputeForm } from "../disputes/actions.server";
import { type DisputeView, listDisputes } from "../disputes/page.server";
import { syncDisputes } from "../disputes/sync.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return listDisputes(prisma, shop, new URL(request.url).searchParams);
};

/** Check now: the last 90 days read from the service at once (the schedule does it every 10 minutes). */
export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return runDisputeForm(prisma, shop, "check", async (client, account) => {
    const r = await syncDisputes(prisma, client, account, { mode: "recent", now: Date.now() });
    return r.newSupportMessages
      ? `${r.newSupportMessages} new message${r.newSupportMessages === 1 ? "" : "s"} from support`
      : "Up to date with the service";
  });
};

const VIEWS: Array<{ id: DisputeView; label: string }> = [
  { id: "all", label: "All" },
  { id: "unread", label: "New messages" },
  { id: "open", label: "Open" },
  { id: "closed", label: "Closed" },
];

type Row = ReturnType<typeof useLoaderData<typeof loader>>["disputes"][number];

function StatusBadge({ d }: { d: Row }) {
  const tone = d.closed ? (d.outcome === "rejected" ? "critical" : undefined) : "attention";
  return (
    <InlineStack gap="100" wrap>
      <Badge tone={tone}>{d.status}</Badge>
      {d.outcome ? <Badge tone="success">{d.outcome}</Badge> : null}
      {d.unread ? <Badge tone="info">New message</Badge> : null}
    </InlineStack>
  );
}

function Title({ d }: { d: Row }) {
  return (
    <Link to={`/app/disputes/${d.id}`} data-primary-link>
      {d.svcDisputeId ? `Dispute ${d.svcDisputeId}` : "Dispute (being sent)"}
    </Link>
  );
}

const usd = (v: string | null) => (v ? `${v} USD` : "—");

export default function Disputes() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const [params, setParams] = useSearchParams();
  const { smDown } = useBreakpoints();
  const view = (id: DisputeView) => {
    const next = new URLSearchParams(params);
    next.delete("page");
    if (id === "all") next.delete("view");
    else next.set("view", id);
    return `?${next.toString()}`;
  };
  return (
    <Page
      title="Disputes"
      subtitle="Refunds and reissues you asked the supplier for, and what support answered."
      secondaryActions={<CheckNow label="Check now" />}
      fullWidth
    >
      <BlockStack gap="400">
        <FormStatus data={result} />
        <Card padding="0">
          <ViewTabs
            label="Dispute views"
            views={VIEWS}
            current={data.filter.view}
            counts={data.viewCounts}
            href={view}
          />
          <Box padding="300">
            <InlineStack gap="200" blockAlign="end" wrap>
              <div style={{ flex: "1 1 320px" }}>
                <SearchBar
                  label="Search disputes"
                  q={data.filter.q}
                  placeholder="Dispute id, order number, service order, reason, status"
                  keep={{
                    view: data.filter.view === "all" ? null : data.filter.view,
                    status: data.filter.status || null,
                  }}
                  clearUrl={view(data.filter.view)}
                />
              </div>
              <Select
                label="Status"
                options={[
                  { label: "All statuses", value: "" },
                  ...data.statuses.map((s) => ({ label: s, value: s })),
                ]}
                value={data.filter.status}
                onChange={(v) => {
                  const next = new URLSearchParams(params);
                  next.delete("page");
                  if (v) next.set("status", v);
                  else next.delete("status");
                  setParams(next);
                }}
              />
            </InlineStack>
          </Box>
          {data.disputes.length === 0 ? (
            <Box padding="600">
              <BlockStack gap="200" inlineAlign="center">
                <Text as="h2" variant="headingMd">
                  {data.filter.q ? "No disputes match" : "No disputes here"}
                </Text>
                <Text as="p" tone="subdued" alignment="center">
                  {data.filter.q
                    ? "Try another search."
                    : "Open one from an order's page when a parcel arrives damaged, wrong or not at all. Disputes opened on the service's site appear here too."}
                </Text>
              </BlockStack>
            </Box>
          ) : (
            <IndexTable
              resourceName={{ singular: "dispute", plural: "disputes" }}
              itemCount={data.disputes.length}
              selectable={false}
              condensed={smDown}
              headings={[
                { title: "Dispute" },
                { title: "Order" },
                { title: "Status" },
                { title: "Reason" },
                { title: "Asked" },
                { title: "Refund", alignment: "end" },
                { title: "Opened" },
                { title: "Last message" },
              ]}
            >
              {data.disputes.map((d, i) => (
                <IndexTable.Row id={d.id} key={d.id} position={i}>
                  {smDown ? (
                    <div style={{ padding: "12px 16px" }}>
                      <BlockStack gap="100">
                        <InlineStack align="space-between" gap="200">
                          <Title d={d} />
                          <Text as="span" numeric>
                            {usd(d.money)}
                          </Text>
                        </InlineStack>
                        <Text as="span" tone="subdued">
                          {`${d.orderName ?? d.orderNumber ?? "Order not in the app"} · ${d.reason ?? "—"}`}
                        </Text>
                        <StatusBadge d={d} />
                      </BlockStack>
                    </div>
                  ) : (
                    <>
                      <IndexTable.Cell>
                        <Title d={d} />
                      </IndexTable.Cell>
                      <IndexTable.Cell>
                        {d.orderId ? (
                          <Link to={`/app/orders/${d.orderId}`}>{d.orderName ?? "Order"}</Link>
                        ) : (
                          (d.orderNumber ?? "—")
                        )}
                      </IndexTable.Cell>
                      <IndexTable.Cell>
                        <StatusBadge d={d} />
                      </IndexTable.Cell>
                      <IndexTable.Cell>{d.reason ?? "—"}</IndexTable.Cell>
                      <IndexTable.Cell>{d.expect ?? "—"}</IndexTable.Cell>
                      <IndexTable.Cell>
                        <Text as="span" alignment="end" numeric>
                          {usd(d.money)}
                        </Text>
                      </IndexTable.Cell>
                      <IndexTable.Cell>{formatDateTime(d.openedAt)}</IndexTable.Cell>
                      <IndexTable.Cell>
                        {d.lastMessageAt ? formatDateTime(d.lastMessageAt) : "—"}
                      </IndexTable.Cell>
                    </>
                  )}
                </IndexTable.Row>
              ))}
            </IndexTable>
          )}
        </Card>
        <ListFooter total={data.total} noun="dispute" page={data.filter.page} pages={data.pages} />
      </BlockStack>
    </Page>
  );
}
