/**
 * The disputes list: views, search, status filter, pages, and "Check now". The work is
 * app/disputes/page.server.ts (data) and app/disputes/sync.server.ts (check now); the filters and
 * the table are app/disputes/ui/.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { BlockStack, Card, Page } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { ListFooter } from "../components/ListFooter";
import { ViewTabs } from "../components/ViewTabs";
import { prisma } from "../db.server";
import { runDisputeForm } from "../disputes/forms.server";
import { type DisputeView, listDisputes } from "../disputes/page.server";
import { syncDisputes } from "../disputes/sync.server";
import { CheckNow } from "../disputes/ui/DisputeFields";
import { DisputeFilters, NoDisputes } from "../disputes/ui/DisputesList";
import { DisputesTable } from "../disputes/ui/DisputesTable";
import { shopTimeZone } from "../orders/shop-zone.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const [list, timeZone] = await Promise.all([
    listDisputes(prisma, shop, new URL(request.url).searchParams),
    shopTimeZone(prisma, shop),
  ]);
  return { ...list, timeZone };
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

export default function Disputes() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const [params] = useSearchParams();
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
          <DisputeFilters
            filter={data.filter}
            statuses={data.statuses}
            clearUrl={view(data.filter.view)}
          />
          {data.disputes.length === 0 ? (
            <NoDisputes searched={Boolean(data.filter.q)} />
          ) : (
            <DisputesTable disputes={data.disputes} timeZone={data.timeZone} />
          )}
        </Card>
        <ListFooter total={data.total} noun="dispute" page={data.filter.page} pages={data.pages} />
      </BlockStack>
    </Page>
  );
}
