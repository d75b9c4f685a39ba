import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { orderName } from "../orders/shop-time";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  ChoiceList,
  InlineStack,
  Page,
  Select,
  Text,
  TextField,
  Thumbnail,
} from "@shopify/polaris";
import { ImageIcon } from "@shopify/polaris-icons";
import { useState } from "react";
import { clientForShop } from "../svc-account/account.server";
import { requireAdmin } from "../pages/context.server";
import { AttachmentFields, MessageField } from "../components/DisputeFields";
import { FormStatus, fieldError, type ActionData } from "../components/FormStatus";
import { RouteErrorBoundary } from "../components/NotFound";
import { useSubmitOnce } from "../components/SubmitOnce";
import { config } from "../config.server";
import { prisma } from "../db.server";
import {
  DisputeInputError,
  attachmentsOf,
  disputeErrorText,
  openDispute,
  openOptions,
  runDisputeForm,
} from "../disputes/actions.server";

async function paidOrder(shop: string, id: string) {
  const order = await prisma.shopOrder.findFirst({
    where: { id, shopDomain: shop },
    select: {
      id: true,
      shopifyOrderName: true,
      shopifyOrderId: true,
      svcOrderId: true,
      paidAt: true,
    },
  });
  if (!order) throw new Response("Order not found", { status: 404 });
  return order;
}

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const order = await paidOrder(shop, new URL(request.url).searchParams.get("order") ?? "");
  const name = orderName(order);
  if (!order.svcOrderId || !order.paidAt)
    return {
      order: { id: order.id, name },
      options: null,
      error: "Disputes can be opened on orders paid at the service only.",
    };
  try {
    const client = await clientForShop(prisma, shop);
    if (!client) throw new DisputeInputError("Connect a service account first (Settings).");
    const options = await openOptions(client, order.svcOrderId);
    return { order: { id: order.id, name }, options, error: null };
  } catch (error) {
    return {
      order: { id: order.id, name },
      options: null,
      error: disputeErrorText(error, true),
    };
  }
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, redirect } = await requireAdmin(request);
  const orderId = new URL(request.url).searchParams.get("order") ?? "";
  const form = await request.formData();
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
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const [quantities, setQuantities] = useState<Record<string, string>>({});
  const [reasonId, setReasonId] = useState("");
  const [expect, setExpect] = useState<string[]>(["1"]);
  const [refundTo, setRefundTo] = useState<string[]>(["1"]);
  const [text, setText] = useState("");
  const back = { content: order.name, url: `/app/orders/${order.id}` };
  if (!options) {
    return (
      <Page title={`Open a dispute on ${order.name}`} backAction={back}>
        <Banner tone="critical" title="The dispute form cannot be shown">
          {error}
        </Banner>
      </Page>
    );
  }
  const linesError = fieldError(result, "open", "lines");
  return (
    <Page title={`Open a dispute on ${order.name}`} backAction={back}>
      <Form method="post" encType="multipart/form-data" onSubmit={once.onSubmit}>
        <input type="hidden" name="formKey" value={once.key} />
        <input type="hidden" name="expectType" value={expect[0] ?? ""} />
        <input type="hidden" name="refundType" value={refundTo[0] ?? ""} />
        <BlockStack gap="400">
          <FormStatus data={result} summary />
          <Card>
            <BlockStack gap="300">
              <Text as="h2" variant="headingMd">
                What went wrong with which items
              </Text>
              {linesError ? <Banner tone="critical">{linesError}</Banner> : null}
              {options.lines.map((l) => (
                <InlineStack key={l.lineItemId} gap="300" blockAlign="center" wrap={false}>
                  <Thumbnail source={l.image ?? ImageIcon} alt="" size="small" />
                  <div style={{ flex: 1, minWidth: 0 }}>
                    <BlockStack gap="050">
                      <Text as="span" breakWord>
                        {l.name}
                      </Text>
                      <Text as="span" tone="subdued" variant="bodySm">
                        {l.canChoose
                          ? `${l.price} USD each · up to ${l.available}`
                          : "An open dispute already covers it"}
                      </Text>
                    </BlockStack>
                  </div>
                  <div style={{ width: 96 }}>
                    <TextField
                      label={`Quantity of ${l.name}`}
                      labelHidden
                      type="number"
                      name={`qty:${l.lineItemId}`}
                      min={0}
                      value={quantities[l.lineItemId] ?? "0"}
                      onChange={(v) => setQuantities((q) => ({ ...q, [l.lineItemId]: v }))}
                      disabled={!l.canChoose}
                      autoComplete="off"
                      error={quantityError(quantities[l.lineItemId], l.available)}
                    />
                  </div>
                </InlineStack>
              ))}
              <Select
                label="Reason"
                name="reasonId"
                options={[
                  { label: "Choose a reason", value: "" },
                  ...options.reasons.map((r) => ({ label: r.name, value: r.id })),
                ]}
                value={reasonId}
                onChange={setReasonId}
                error={fieldError(result, "open", "reasonId")}
              />
            </BlockStack>
          </Card>
          <Card>
            <BlockStack gap="300">
              <ChoiceList
                title="What you ask for"
                choices={[
                  { label: "A refund", value: "1" },
                  { label: "A reissue (the items sent again)", value: "2" },
                ].filter((c) => options.expectOptions.includes(c.value))}
                selected={expect}
                onChange={setExpect}
                error={fieldError(result, "open", "expectType")}
              />
              {expect[0] === "1" ? (
                <ChoiceList
                  title="Refund to"
                  choices={[
                    { label: "Your balance at the service", value: "1" },
                    { label: "The way you paid", value: "2" },
                  ]}
                  selected={refundTo}
                  onChange={setRefundTo}
                  error={fieldError(result, "open", "refundType")}
                />
              ) : null}
              <MessageField
                label="Describe the problem"
                value={text}
                onChange={setText}
                helpText="Support reads this first. Emoji are removed by the service."
                error={fieldError(result, "open", "text")}
              />
              <AttachmentFields result={result} intent="open" />
            </BlockStack>
          </Card>
          <InlineStack align="end" gap="200">
            <Button url={back.url}>Cancel</Button>
            <Button submit variant="primary" loading={busy} disabled={busy}>
              Open dispute
            </Button>
          </InlineStack>
        </BlockStack>
      </Form>
    </Page>
  );
}

/** What is wrong with a typed quantity, before sending (the server checks again). */
function quantityError(typed: string | undefined, available: number): string | undefined {
  const t = (typed ?? "").trim();
  if (t === "" || t === "0") return undefined;
  const n = Number(t);
  if (!Number.isInteger(n) || n < 0) return "A whole number, 0 or more";
  if (n > available) return `More than the ${available} ordered`;
  return undefined;
}

export function ErrorBoundary() {
  return <RouteErrorBoundary what="order" />;
}
