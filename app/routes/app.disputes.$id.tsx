/**
 * One dispute's page: its messages, the reply form, the summary and items, "Cancel dispute". The
 * work is app/disputes/page.server.ts (data), app/disputes/reply-cancel.server.ts (check, cancel,
 * reply) and app/disputes/forms.server.ts (the form's outcome); the cards are app/disputes/ui/.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Badge, Banner, BlockStack, InlineStack, Layout, Page } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { RouteErrorBoundary } from "../components/NotFound";
import { config } from "../config.server";
import { prisma } from "../db.server";
import { attachmentsOf, disputeFormOf, runDisputeForm } from "../disputes/forms.server";
import { cancelDispute, refreshOne, replyToDispute } from "../disputes/reply-cancel.server";
import { disputeDetail } from "../disputes/page.server";
import { CheckNow } from "../disputes/ui/DisputeFields";
import { MessagesCard } from "../disputes/ui/DisputeMessages";
import { ReplyCard } from "../disputes/ui/DisputeReply";
import { CancelCard, ItemsCard, SummaryCard } from "../disputes/ui/DisputeSummary";
import { shopTimeZone } from "../orders/shop-zone.server";

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const [dispute, timeZone] = await Promise.all([
    disputeDetail(prisma, shop, params.id ?? ""),
    shopTimeZone(prisma, shop),
  ]);
  if (!dispute) throw new Response("Dispute not found", { status: 404 });
  return { dispute, timeZone };
};

export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const form = await disputeFormOf(request, shop, "reply");
  if (!(form instanceof FormData)) return form;
  const intent = String(form.get("intent") ?? "");
  const id = params.id ?? "";
  if (intent === "check") {
    return runDisputeForm(prisma, shop, intent, async (client, account) => {
      const d = await prisma.dispute.findFirst({ where: { id, shopDomain: shop } });
      if (d) await refreshOne(prisma, client, account, d.svcDisputeId);
      return "Up to date with the service";
    });
  }
  if (intent === "cancel") {
    return runDisputeForm(prisma, shop, intent, async (client, account) => {
      await cancelDispute(prisma, client, account, id);
      return "Dispute cancelled";
    });
  }
  return runDisputeForm(prisma, shop, "reply", async (client, account) => {
    const r = await replyToDispute(prisma, client, account, config.SHOPIFY_APP_URL, {
      id,
      text: String(form.get("text") ?? ""),
      clientKey: String(form.get("formKey") ?? ""),
      ...attachmentsOf(form),
    });
    return r.already && !r.sent ? "Already sent" : "Reply sent";
  });
};

export default function DisputePage() {
  const { dispute: d, timeZone } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const title = d.svcDisputeId ? `Dispute ${d.svcDisputeId}` : "Dispute (being sent)";
  return (
    <Page
      title={title}
      backAction={{ content: "Disputes", url: "/app/disputes" }}
      secondaryActions={<CheckNow label="Check for new messages" />}
      titleMetadata={
        <InlineStack gap="100">
          <Badge tone={d.closed ? undefined : "attention"}>{d.status}</Badge>
          {d.outcome ? <Badge tone="success">{d.outcome}</Badge> : null}
        </InlineStack>
      }
    >
      <BlockStack gap="400">
        <FormStatus data={result} />
        <Layout>
          <Layout.Section>
            <BlockStack gap="400">
              <MessagesCard messages={d.messages} timeZone={timeZone} />
              {d.cancelled ? null : <ReplyCard result={result} />}
            </BlockStack>
          </Layout.Section>
          <Layout.Section variant="oneThird">
            <BlockStack gap="400">
              <SummaryCard d={d} timeZone={timeZone} />
              <ItemsCard lines={d.lines} />
              {d.closed || !d.svcDisputeId ? null : <CancelCard />}
              {d.cancelled ? (
                <Banner tone="info">This dispute is cancelled: it takes no more messages.</Banner>
              ) : null}
            </BlockStack>
          </Layout.Section>
        </Layout>
      </BlockStack>
    </Page>
  );
}

export function ErrorBoundary() {
  return <RouteErrorBoundary what="dispute" />;
}
