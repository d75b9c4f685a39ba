/**
 * The open-a-dispute page of one order. The work is app/disputes/open-page.server.ts (the order
 * and the form's options) and app/disputes/open.server.ts (opening it); the form is
 * app/disputes/ui/OpenDisputeForm.tsx.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Banner, Page } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { type ActionData } from "../components/FormStatus";
import { RouteErrorBoundary } from "../components/NotFound";
import { config } from "../config.server";
import { prisma } from "../db.server";
import { attachmentsOf, disputeFormOf, runDisputeForm } from "../disputes/forms.server";
import { openDispute } from "../disputes/open.server";
import { openDisputePage } from "../disputes/open-page.server";
import { OpenDisputeForm } from "../disputes/ui/OpenDisputeForm";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const orderId = new URL(request.url).searchParams.get("order") ?? "";
  const page = await openDisputePage(prisma, shop, orderId);
  if (!page) throw new Response("Order not found", { status: 404 });
  return page;
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, redirect } = await requireAdmin(request);
  const orderId = new URL(request.url).searchParams.get("order") ?? "";
  const form = await disputeFormOf(request, shop, "open");
  if (!(form instanceof FormData)) return form;
  const quantities: Record<string, number> = {};
  for (const [k, v] of form.entries()) {
    if (k.startsWith("qty:") && typeof v === "string" && v.trim() !== "") {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0)
        return {
          ok: false as const,
          intent: "open",
          errors: { lines: "Quantities are whole numbers, 0 or more." },
        };
      quantities[k.slice(4)] = n;
    }
  }
  const r = await runDisputeForm(prisma, shop, "open", async (client, account) => {
    const opened = await openDispute(prisma, client, account, config.SHOPIFY_APP_URL, {
      orderId,
      quantities,
      reasonId: String(form.get("reasonId") ?? ""),
      expectType: String(form.get("expectType") ?? ""),
      refundType: String(form.get("refundType") ?? ""),
      text: String(form.get("text") ?? ""),
      clientKey: String(form.get("formKey") ?? ""),
      ...attachmentsOf(form),
    });
    return { message: "Dispute opened", id: opened.disputeId };
  });
  if (r.ok && "id" in r && r.id) return redirect(`/app/disputes/${r.id}`);
  return r;
};

export default function OpenDispute() {
  const { order, options, error } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const back = { content: order.name, url: `/app/orders/${order.id}` };
  return (
    <Page title={`Open a dispute on ${order.name}`} backAction={back}>
      {options ? (
        <OpenDisputeForm options={options} result={result} cancelUrl={back.url} />
      ) : (
        <Banner tone="critical" title="The dispute form cannot be shown">
          {error}
        </Banner>
      )}
    </Page>
  );
}

export function ErrorBoundary() {
  return <RouteErrorBoundary what="order" />;
}
