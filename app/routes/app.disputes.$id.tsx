import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  InlineStack,
  Layout,
  Link as PolarisLink,
  Page,
  Text,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { requireAdmin } from "../pages/context.server";
import { ConfirmSubmit } from "../components/ConfirmSubmit";
import { AttachmentFields, CheckNow, MessageField } from "../components/DisputeFields";
import { Facts } from "../components/Facts";
import { FormStatus, fieldError, type ActionData } from "../components/FormStatus";
import { RouteErrorBoundary } from "../components/NotFound";
import { useSubmitOnce } from "../components/SubmitOnce";
import { formatDateTime } from "../components/format";
import { config } from "../config.server";
import { prisma } from "../db.server";
import {
  attachmentsOf,
  cancelDispute,
  refreshOne,
  replyToDispute,
  runDisputeForm,
} from "../disputes/actions.server";
import { disputeDetail } from "../disputes/page.server";

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const dispute = await disputeDetail(prisma, shop, params.id ?? "");
  if (!dispute) throw new Response("Dispute not found", { status: 404 });
  return { dispute };
};

export const action = async ({ request, params }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const form = await request.formData();
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

const REPLY_RULES =
  "Support reads replies while the dispute is being processed (pending processing or review, finance review, on hold, supplier refund review, payment processing) and, as a note only, once it is completed. Emoji are removed by the service. At most 500 characters.";

export default function DisputePage() {
  const { dispute: d } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const [text, setText] = useState("");
  useEffect(() => {
    // Sent: the box empties; refused: what was typed stays.
    if (result?.ok && result.intent === "reply") setText("");
  }, [result]);
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
              <Card>
                <BlockStack gap="300">
                  <Text as="h2" variant="headingMd">
                    Messages
                  </Text>
                  {d.messages.length === 0 ? (
                    <Text as="p" tone="subdued">
                      No messages yet.
                    </Text>
                  ) : (
                    <ol
                      aria-label="Messages"
                      style={{ listStyle: "none", margin: 0, padding: 0, display: "grid", gap: 12 }}
                    >
                      {d.messages.map((m) => (
                        <li key={m.id}>
                          <Box
                            padding="300"
                            borderRadius="200"
                            background={m.fromSupport ? "bg-surface-secondary" : "bg-surface-info"}
                          >
                            <BlockStack gap="100">
                              <InlineStack gap="200" blockAlign="center">
                                <Text as="span" fontWeight="semibold">
                                  {m.fromSupport ? "Support" : "You"}
                                </Text>
                                <Text as="span" tone="subdued" variant="bodySm">
                                  {m.sending ? "sending…" : formatDateTime(m.at)}
                                </Text>
                              </InlineStack>
                              {m.text ? (
                                <Text as="p" breakWord>
                                  {m.text}
                                </Text>
                              ) : null}
                              {[...m.images, ...m.videos].length ? (
                                <InlineStack gap="200" wrap>
                                  {m.images.map((u, i) => (
                                    <a
                                      key={u}
                                      href={u}
                                      target="_blank"
                                      rel="noreferrer"
                                      data-dispute-photo
                                    >
                                      <img
                                        src={u}
                                        alt={`Photo ${i + 1} ${m.fromSupport ? "from support" : "you sent"} (opens full size in a new tab)`}
                                        width={96}
                                        height={96}
                                        loading="lazy"
                                        style={{
                                          objectFit: "cover",
                                          borderRadius: 8,
                                          display: "block",
                                          background: "var(--p-color-bg-surface-secondary)",
                                        }}
                                      />
                                    </a>
                                  ))}
                                  {m.videos.map((u, i) => (
                                    <PolarisLink key={u} url={u} target="_blank">
                                      {`Video ${i + 1}`}
                                    </PolarisLink>
                                  ))}
                                </InlineStack>
                              ) : null}
                            </BlockStack>
                          </Box>
                        </li>
                      ))}
                    </ol>
                  )}
                </BlockStack>
              </Card>
              {d.cancelled ? null : (
                <Card>
                  <Form
                    method="post"
                    encType="multipart/form-data"
                    onSubmit={once.onSubmit}
                    aria-label="Reply"
                  >
                    <input type="hidden" name="intent" value="reply" />
                    <input type="hidden" name="formKey" value={once.key} />
                    <BlockStack gap="300">
                      <Text as="h2" variant="headingMd">
                        Reply
                      </Text>
                      <MessageField
                        label="Your message"
                        value={text}
                        onChange={setText}
                        helpText={REPLY_RULES}
                        error={fieldError(result, "reply", "text")}
                      />
                      <AttachmentFields result={result} intent="reply" />
                      <InlineStack>
                        <Button submit variant="primary" loading={busy} disabled={busy}>
                          Send reply
                        </Button>
                      </InlineStack>
                    </BlockStack>
                  </Form>
                </Card>
              )}
            </BlockStack>
          </Layout.Section>
          <Layout.Section variant="oneThird">
            <BlockStack gap="400">
              <Card>
                <BlockStack gap="300">
                  <Text as="h2" variant="headingMd">
                    Summary
                  </Text>
                  <Facts
                    items={[
                      [
                        "Order",
                        d.order ? (
                          <PolarisLink url={`/app/orders/${d.order.id}`}>
                            {d.order.name}
                          </PolarisLink>
                        ) : (
                          (d.svcOrderId ?? "—")
                        ),
                      ],
                      ["Reason", d.reason ?? "—"],
                      ["Asked", d.expect ?? "—"],
                      ["Refund", d.money ? `${d.money} USD` : "—"],
                      ...d.refundParts.map((p) => [`· ${p.name}`, `${p.amount} USD`] as const),
                      ...(d.replacementAmount &&
                      d.replacementAmount !== "0" &&
                      d.replacementAmount !== "0.00"
                        ? ([["Reissue value", `${d.replacementAmount} USD`]] as const)
                        : []),
                      ["Opened", formatDateTime(d.openedAt)],
                    ]}
                  />
                </BlockStack>
              </Card>
              <Card>
                <BlockStack gap="200">
                  <Text as="h2" variant="headingMd">
                    Items
                  </Text>
                  {d.lines.length === 0 ? (
                    <Text as="p" tone="subdued">
                      The service lists the items once it has the dispute.
                    </Text>
                  ) : (
                    <ul style={{ margin: 0, paddingInlineStart: 18 }}>
                      {d.lines.map((l, i) => (
                        <li key={i}>
                          <Text as="span">
                            {`${l.name}${l.quantity ? ` × ${l.quantity}` : ""}${l.price ? ` · ${l.price} USD` : ""}`}
                          </Text>
                        </li>
                      ))}
                    </ul>
                  )}
                </BlockStack>
              </Card>
              {d.closed || !d.svcDisputeId ? null : (
                <Card>
                  <BlockStack gap="200">
                    <Text as="p" tone="subdued">
                      Solved with the customer another way? Cancel the dispute.
                    </Text>
                    <ConfirmSubmit
                      intent="cancel"
                      label="Cancel dispute"
                      title="Cancel this dispute?"
                      tone="critical"
                      keepLabel="Keep the dispute open"
                    >
                      The supplier stops working on it and no refund or reissue follows. A cancelled
                      dispute cannot be opened again from here.
                    </ConfirmSubmit>
                  </BlockStack>
                </Card>
              )}
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
