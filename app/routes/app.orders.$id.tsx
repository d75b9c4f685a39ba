/**
 * The work queue's order page: one order in full, what can be done to it, its repair, tracking,
 * disputes, timeline and lines. The order is app/workqueue/order-detail.server.ts, its actions
 * app/workqueue/order-actions.server.ts (the repair's app/repair/page.server.ts); the cards are
 * app/workqueue/ui/order/ and the Repair card app/repair/ui/RepairCard.tsx.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { Banner, BlockStack, Layout, Page, Text } from "@shopify/polaris";
import { RouteErrorBoundary } from "../components/NotFound";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { requireAdmin } from "../pages/context.server";
import { orderAction } from "../workqueue/order-actions.server";
import { orderDetail } from "../workqueue/order-detail.server";
import { orderFiles } from "../archive/archive.server";
import { fileLink } from "../archive/files.server";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { RepairCard, type RepairData } from "../repair/ui/RepairCard";
import { repairAction, repairCardData } from "../repair/page.server";
import { SandboxCard, ShipButton } from "../sandbox/ui/SandboxActions";
import { StateBadge } from "../components/StateBadge";
import { prisma } from "../db.server";
import { disputesOfOrder } from "../disputes/page.server";
import { ActionsCard } from "../workqueue/ui/order/ActionsCard";
import { DisputesCard } from "../workqueue/ui/order/DisputesCard";
import { FactsCards } from "../workqueue/ui/order/FactsCards";
import { LinesCard, PendingLinesCard } from "../workqueue/ui/order/LinesCards";
import { ProblemBanner } from "../workqueue/ui/order/ProblemBanner";
import { TimelineCard } from "../workqueue/ui/order/TimelineCard";
import { TrackingCard } from "../workqueue/ui/order/TrackingCard";
import { readForm } from "../page-kit/forms.server";

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const order = await orderDetail(prisma, shop, params.id ?? "");
  if (!order) throw new Response("Order not found", { status: 404 });
  // Proof of delivery and warehouse photos from the app's archive (the service's links expire).
  const archived = await orderFiles(prisma, shop, order.id);
  const files = archived.files.map((f) => ({
    id: f.id,
    purpose: f.purpose,
    video: f.contentType.startsWith("video/"),
    image: f.contentType.startsWith("image/"),
    url: fileLink(f.id),
  }));
  const pod = { files, copying: archived.copying, failed: archived.failed };
  const repair = await repairCardData(prisma, shop, order.id);
  const disputes = await disputesOfOrder(prisma, shop, order.id);
  return { order, pod, sandbox, repair, disputes };
};

export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const form = await readForm(request);
  if (String(form.get("intent")).startsWith("repair")) {
    return repairAction(prisma, shop, params.id ?? "", form);
  }
  return orderAction(prisma, shop, params.id ?? "", form);
};

export default function OrderPage() {
  const { order, pod, sandbox, repair, disputes } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const [params] = useSearchParams();
  // The order moves on its own (webhooks, jobs); never while the merchant edits the Repair form.
  useAutoRefresh();
  return (
    <Page
      title={`Order ${order.name}`}
      titleMetadata={
        <span data-order-state={order.state}>
          <StateBadge state={order.state} reasonCode={order.reasonCode} />
        </span>
      }
      backAction={{ content: "Orders", url: "/app/orders" }}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            {params.get("shipped") ? (
              <Banner tone="info">
                The service simulator shipped the order; tracking arrives with its webhook.
              </Banner>
            ) : null}
            <FormStatus data={result} />
            <ProblemBanner order={order} />
            <ActionsCard order={order} />
            {repair ? <RepairCard data={repair as RepairData} result={result} /> : null}
            {sandbox && ["PAID", "SHIPPED", "FULFILLED"].includes(order.state) ? (
              <SandboxCard>
                <ShipButton orderId={order.id} />
                <Text as="span" tone="subdued">
                  The service simulator ships the order and sends the LOGISTIC webhook.
                </Text>
              </SandboxCard>
            ) : null}
            <TrackingCard order={order} pod={pod} />
            <DisputesCard order={order} disputes={disputes} />
            <TimelineCard order={order} />
            <PendingLinesCard order={order} />
            <LinesCard order={order} />
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <BlockStack gap="400">
            <FactsCards order={order} />
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <RouteErrorBoundary what="order" />;
}
