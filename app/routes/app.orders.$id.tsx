import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
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
  Thumbnail,
} from "@shopify/polaris";
import { ImageIcon } from "@shopify/polaris-icons";
import { KeyboardDataTable } from "../components/KeyboardDataTable";
import { Facts } from "../components/Facts";
import { RouteErrorBoundary } from "../components/NotFound";
import { ConfirmSubmit } from "../components/ConfirmSubmit";
import { useSubmitOnce } from "../components/SubmitOnce";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { BULK_LABELS, fittingActions } from "../workqueue/order-fit";
import { scheduledText, shopDateTime, validZone } from "../orders/shop-time";
import { isScheduled } from "../orders/states";
import { batchWords, flagWords, plainMessage, stepWords } from "../orders/plain-words";
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
import { itemsTotal, rateText } from "../fx/format";
import { prisma } from "../db.server";
import { disputesOfOrder } from "../disputes/page.server";

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
  const form = await request.formData();
  if (String(form.get("intent")).startsWith("repair")) {
    return repairAction(prisma, shop, params.id ?? "", form);
  }
  return orderAction(prisma, shop, params.id ?? "", form);
};

/** The order page's own labels; which actions show is order-fit's (the same as the list's). */
const ACTION_HELP: Record<string, string> = {
  retry: "send it on from where it stopped",
  hold: "stop it here until you release it",
  release: "let it go on now",
};

type Detail = ReturnType<typeof useLoaderData<typeof loader>>["order"];

/** The zone's name as the merchant reads it ("Europe/Paris"; UTC when the shop's is unknown). */
function zoneName(timeZone: string | null): string {
  return validZone(timeZone).replace(/_/g, " ");
}

/**
 * What stops the order, when something does: a failed or held order, or a problem after payment.
 * A scheduled order (the review window) and a cancelled one are not problems.
 */
function ProblemBanner({ order }: { order: Detail }) {
  if (isScheduled(order)) return null;
  if (order.state === "CANCELLED" && !order.flag) {
    return order.reasonMessage ? (
      <Banner tone="info" title="Cancelled">
        <p>{order.reasonMessage}</p>
      </Banner>
    ) : null;
  }
  if (!order.reasonMessage && !order.flag) return null;
  return (
    <Banner
      tone={order.state === "FAILED" || order.flag ? "critical" : "warning"}
      title={order.state === "HELD" ? "Held" : "Needs attention"}
    >
      <p>{plainMessage(order.reasonMessage, order.timeZone) || flagWords(order.flag)}</p>
      {order.flag && order.reasonMessage ? <p>{flagWords(order.flag)}</p> : null}
      {order.lastError?.message && order.lastError.message !== order.reasonMessage ? (
        <Text as="p">{`Last error: ${plainMessage(order.lastError.message, order.timeZone)}`}</Text>
      ) : null}
    </Banner>
  );
}

/** The lines' service cost (USD) when every line's is known, else blank. */
function serviceTotal(lines: Array<{ serviceCost: { total: string } | null }>): string {
  if (lines.length === 0 || lines.some((l) => !l.serviceCost)) return "";
  const cents = lines.reduce((a, l) => a + Math.round(Number(l.serviceCost!.total) * 100), 0);
  return Number.isFinite(cents) ? (cents / 100).toFixed(2) : "";
}

/** A line: the product's image, title, variant and SKU. */
function LineItem({
  line,
}: {
  line: { title: string; variantTitle: string | null; sku: string | null; image: string | null };
}) {
  return (
    <InlineStack gap="200" wrap={false} blockAlign="center">
      <Thumbnail source={line.image ?? ImageIcon} alt="" size="small" />
      <BlockStack gap="050">
        <Text as="span">{line.title}</Text>
        {line.variantTitle ? (
          <Text as="span" tone="subdued">
            {line.variantTitle}
          </Text>
        ) : null}
        <Text as="span" tone="subdued" variant="bodySm">
          {`SKU ${line.sku ?? "—"}`}
        </Text>
      </BlockStack>
    </InlineStack>
  );
}

type Pod = ReturnType<typeof useLoaderData<typeof loader>>["pod"];

/** Proof of delivery and warehouse photos, shown from the app's own copies. */
function ArchivedFiles({ pod }: { pod: Pod }) {
  const groups = [
    ["proof_of_delivery", "Proof of delivery"],
    ["warehouse_photo", "Warehouse photos"],
  ] as const;
  return (
    <>
      {groups.map(([purpose, title]) => {
        const files = pod.files.filter((f) => f.purpose === purpose);
        if (files.length === 0) return null;
        return (
          <BlockStack gap="100" key={purpose}>
            <Text as="h3" variant="headingSm">
              {title}
            </Text>
            <InlineStack gap="200" wrap>
              {files.map((f, i) => (
                <a
                  key={f.id}
                  href={f.url}
                  target="_blank"
                  rel="noreferrer"
                  data-archived={purpose}
                  aria-label={`${title}: file ${i + 1}`}
                >
                  {f.image ? (
                    <img
                      src={f.url}
                      alt=""
                      width={72}
                      height={72}
                      style={{
                        objectFit: "cover",
                        borderRadius: 8,
                        display: "block",
                        border: "1px solid var(--p-color-border)",
                      }}
                    />
                  ) : (
                    <Text as="span">{f.video ? `Video ${i + 1}` : `File ${i + 1}`}</Text>
                  )}
                </a>
              ))}
            </InlineStack>
          </BlockStack>
        );
      })}
      {pod.copying > 0 ? (
        <Text as="p" tone="subdued">
          {`Copying ${pod.copying} file${pod.copying === 1 ? "" : "s"} from the service into the app…`}
        </Text>
      ) : null}
      {pod.failed.length > 0 ? (
        <Text as="p" tone="subdued">
          {`${pod.failed.length} file${pod.failed.length === 1 ? "" : "s"} could not be copied: ${pod.failed[0]}`}
        </Text>
      ) : null}
    </>
  );
}

export default function OrderPage() {
  const { order, pod, sandbox, repair, disputes } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const actions = fittingActions(order);
  const scheduled = isScheduled(order);
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
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  Actions
                </Text>
                {scheduled ? (
                  <div data-scheduled={order.placeAfter ?? ""}>
                    <BlockStack gap="100">
                      <Text as="p" fontWeight="semibold">
                        {scheduledText(order.placeAfter, order.timeZone, order.createdAt)}
                      </Text>
                      <Text as="p" tone="subdued">
                        {`The review window gives you time to check or cancel the order; it then goes to the service by itself. Times are the shop's (${zoneName(order.timeZone)}).`}
                      </Text>
                    </BlockStack>
                  </div>
                ) : null}
                {actions.length === 0 && !order.flag ? (
                  <Text as="p" tone="subdued">
                    {order.state === "CANCELLED"
                      ? "Nothing to do: the order is cancelled and left the pipeline."
                      : "Nothing to do: the order goes on by itself."}
                  </Text>
                ) : null}
                <InlineStack gap="200" blockAlign="center">
                  {actions.includes("pay-now") && !order.payRequestedAt ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="pay-now" />
                      <Button submit variant="primary" disabled={busy}>
                        {`Pay now${order.amount ? ` (${order.amount} USD)` : ""}`}
                      </Button>
                    </Form>
                  ) : null}
                  {order.flag ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="dismiss" />
                      <Button submit disabled={busy}>
                        Mark as handled
                      </Button>
                    </Form>
                  ) : null}
                  {(["release", "retry", "hold"] as const)
                    .filter((a) => actions.includes(a))
                    .map((a) => {
                      // A scheduled order's Release is "Place now": it skips the review window.
                      const label = scheduled && a === "release" ? "Place now" : BULK_LABELS[a];
                      const help =
                        scheduled && a === "release"
                          ? "send it to the service without waiting"
                          : ACTION_HELP[a];
                      return (
                        <Form method="post" key={a} onSubmit={once.onSubmit}>
                          <input type="hidden" name="intent" value={a} />
                          <Button
                            submit
                            disabled={busy}
                            variant={scheduled && a === "release" ? "primary" : undefined}
                            // The accessible name starts with the visible label (WCAG 2.5.3).
                            accessibilityLabel={`${label}: ${help}`}
                          >
                            {label}
                          </Button>
                        </Form>
                      );
                    })}
                  {actions.includes("cancel") ? (
                    <ConfirmSubmit
                      intent="cancel"
                      label="Cancel order"
                      title={`Cancel ${order.name}?`}
                      tone="critical"
                    >
                      It leaves the pipeline and is not sent to the service; the shop order itself
                      is not cancelled. This cannot be undone.
                    </ConfirmSubmit>
                  ) : null}
                </InlineStack>
              </BlockStack>
            </Card>
            {repair ? <RepairCard data={repair as RepairData} result={result} /> : null}
            {sandbox && ["PAID", "SHIPPED", "FULFILLED"].includes(order.state) ? (
              <SandboxCard>
                <ShipButton orderId={order.id} />
                <Text as="span" tone="subdued">
                  The service simulator ships the order and sends the LOGISTIC webhook.
                </Text>
              </SandboxCard>
            ) : null}
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  Tracking
                </Text>
                {order.shipments.length === 0 ? (
                  <Text as="p" tone="subdued">
                    No parcel yet.
                  </Text>
                ) : (
                  order.shipments.map((s) => (
                    <div key={s.id} data-tracking={s.trackNumber ?? ""}>
                      <InlineStack gap="200" blockAlign="center">
                        <Text as="span" fontWeight="semibold">
                          {s.trackNumber ?? "no number yet"}
                        </Text>
                        {s.logisticName ? <Text as="span">{s.logisticName}</Text> : null}
                        {s.trackingUrl ? (
                          <PolarisLink url={s.trackingUrl} target="_blank">
                            Track the parcel
                          </PolarisLink>
                        ) : null}
                        {s.written ? (
                          <Badge tone="success">Sent to the shop</Badge>
                        ) : (
                          <Badge>Not in the shop yet</Badge>
                        )}
                        {s.deliveredAt ? (
                          <Badge tone="success">{`Delivered ${shopDateTime(s.deliveredAt, order.timeZone)}`}</Badge>
                        ) : null}
                      </InlineStack>
                    </div>
                  ))
                )}
                <ArchivedFiles pod={pod} />
              </BlockStack>
            </Card>
            {order.paidAt && order.svcOrderId ? (
              <Card>
                <BlockStack gap="300">
                  <InlineStack align="space-between" blockAlign="center">
                    <Text as="h2" variant="headingMd">
                      Disputes
                    </Text>
                    <Button url={`/app/disputes/new?order=${encodeURIComponent(order.id)}`}>
                      Open a dispute
                    </Button>
                  </InlineStack>
                  {disputes.length === 0 ? (
                    <Text as="p" tone="subdued">
                      A parcel damaged, wrong or lost? Ask the supplier for a refund or a reissue.
                    </Text>
                  ) : (
                    <BlockStack gap="100">
                      {disputes.map((d) => (
                        <InlineStack key={d.id} gap="200" blockAlign="center">
                          <PolarisLink url={`/app/disputes/${d.id}`}>
                            {d.svcDisputeId ? `Dispute ${d.svcDisputeId}` : "Dispute (being sent)"}
                          </PolarisLink>
                          <Badge tone={d.closed ? undefined : "attention"}>{d.status}</Badge>
                          {d.unread ? <Badge tone="info">New message</Badge> : null}
                          <Text as="span" tone="subdued">
                            {[d.reason, d.money ? `${d.money} USD` : null]
                              .filter(Boolean)
                              .join(" · ")}
                          </Text>
                        </InlineStack>
                      ))}
                    </BlockStack>
                  )}
                </BlockStack>
              </Card>
            ) : null}
            <Card>
              <BlockStack gap="300">
                <Text as="h2" variant="headingMd">
                  Timeline
                </Text>
                {order.timeline.length === 0 ? (
                  <Text as="p" tone="subdued">
                    Nothing yet.
                  </Text>
                ) : (
                  <ol style={{ margin: 0, paddingLeft: 18 }}>
                    {order.timeline.map((t) => (
                      <li key={t.id} style={{ marginBottom: 8 }}>
                        <InlineStack gap="200" blockAlign="center">
                          <Text as="span" tone="subdued">
                            {shopDateTime(t.at, order.timeZone)}
                          </Text>
                          <Badge
                            tone={
                              t.outcome === "ok"
                                ? "success"
                                : t.outcome === "error"
                                  ? "critical"
                                  : t.outcome === "held"
                                    ? "warning"
                                    : undefined
                            }
                          >
                            {stepWords(t.step)}
                          </Badge>
                          <Text as="span">{plainMessage(t.message, order.timeZone)}</Text>
                          {t.errorCode || t.requestId ? (
                            // For support: kept out of the sentence, one click away.
                            <details>
                              <summary>
                                <Text as="span" tone="subdued" variant="bodySm">
                                  Technical details
                                </Text>
                              </summary>
                              <Text as="span" tone="subdued" variant="bodySm">
                                {[
                                  t.errorCode ? `code ${t.errorCode}` : null,
                                  t.requestId ? `request ${t.requestId}` : null,
                                ]
                                  .filter(Boolean)
                                  .join(" · ")}
                              </Text>
                            </details>
                          ) : null}
                        </InlineStack>
                      </li>
                    ))}
                  </ol>
                )}
              </BlockStack>
            </Card>
            {order.lines.length === 0 && order.pendingLines.length > 0 ? (
              <Card padding="0">
                <Box padding="300">
                  <Text as="p" tone="subdued">
                    Not placed yet: the lines as the shop sent them.
                  </Text>
                </Box>
                <KeyboardDataTable
                  label="Order lines from the shop"
                  columnContentTypes={["text", "text", "numeric", "numeric"]}
                  headings={[
                    "Item",
                    "SKU",
                    "Quantity",
                    `Shop price (${order.currency ?? "shop currency"})`,
                  ]}
                  rows={order.pendingLines.map((l) => [
                    l.variant_title ? `${l.title} — ${l.variant_title}` : l.title,
                    l.sku ?? "—",
                    l.quantity,
                    l.price ?? "—",
                  ])}
                />
              </Card>
            ) : null}
            {order.lines.length > 0 ? (
              <Card padding="0">
                <KeyboardDataTable
                  label="Order lines"
                  columnContentTypes={["text", "numeric", "numeric", "numeric", "text"]}
                  headings={[
                    "Item",
                    "Quantity",
                    `Shop price (${order.currency ?? "shop currency"})`,
                    "Service cost (USD)",
                    "Catalog variant",
                  ]}
                  rows={order.lines.map((l) => [
                    <LineItem key={l.id} line={l} />,
                    l.quantity,
                    // What the customer pays the shop: the selling price, in the shop's currency.
                    l.unitPrice,
                    // What the service charges the merchant: never the selling price.
                    l.serviceCost ? (
                      <span key="cost" data-service-cost={l.serviceCost.total}>
                        {l.serviceCost.unit
                          ? `${l.serviceCost.unit} × ${l.quantity} = ${l.serviceCost.total}`
                          : `${l.serviceCost.total} for ${l.quantity}`}
                      </span>
                    ) : (
                      "not known yet"
                    ),
                    l.svcVid ? (
                      <span key="vid" title={l.svcVid} style={{ fontFamily: "monospace" }}>
                        {l.svcVid.length > 12 ? `${l.svcVid.slice(0, 8)}…` : l.svcVid}
                      </span>
                    ) : (
                      "not connected"
                    ),
                  ])}
                  totals={["", "", itemsTotal(order.lines), serviceTotal(order.lines), ""]}
                  totalsName={{ singular: "Items total", plural: "Items total" }}
                />
              </Card>
            ) : null}
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <BlockStack gap="400">
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Customer and totals
                </Text>
                <Facts
                  items={[
                    ["Customer", order.customerName ?? "withheld or none"],
                    ["Email", order.customerEmail ?? "—"],
                    [
                      "Shop total",
                      order.shopTotal ? `${order.shopTotal} ${order.currency ?? ""}`.trim() : "—",
                    ],
                    [
                      "Service cost (goods and shipping)",
                      order.amount ? `${order.amount} USD` : "not known yet",
                    ],
                    ["Margin", order.margin !== null ? `${order.margin} USD` : "—"],
                  ]}
                />
                <PolarisLink url={order.shopifyAdminUrl} target="_blank">
                  Open the order in Shopify (address and customer)
                </PolarisLink>
              </BlockStack>
            </Card>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  At the service
                </Text>
                <Facts
                  items={[
                    ["Order number", order.orderNumber],
                    ["Service order", order.svcOrderId ?? "—"],
                    ["Parent order", order.shipmentOrderId ?? "—"],
                    ["Sandbox", order.isSandbox ? "yes (not charged)" : "no"],
                  ]}
                />
              </BlockStack>
            </Card>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Payment
                </Text>
                <Facts
                  items={[
                    // The service's money is USD; the shop's prices stay in its currency.
                    ["Service order total", order.amount ? `${order.amount} USD` : "not known yet"],
                    [
                      "Shipping",
                      order.logisticName
                        ? `${order.logisticName}${order.shippingCost ? ` (${order.shippingCost} USD)` : ""}`
                        : "—",
                    ],
                    ["Exchange rate", rateText(order)],
                    ["Paid", order.paidAt ? shopDateTime(order.paidAt, order.timeZone) : "not yet"],
                    ["Batch", order.payment ? batchWords(order.payment.state) : "—"],
                  ]}
                />
              </BlockStack>
            </Card>
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Dates
                </Text>
                <Facts
                  items={(
                    [
                      ["Received", order.createdAt],
                      ["Placed", order.placedAt],
                      ["Paid", order.paidAt],
                      ["Tracking sent", order.fulfilledAt],
                      ["Delivered", order.deliveredAt],
                      ["Cancelled", order.cancelledAt],
                    ] as const
                  ).flatMap(([k, v]) => (v ? [[k, shopDateTime(v, order.timeZone)] as const] : []))}
                />
              </BlockStack>
            </Card>
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

export function ErrorBoundary() {
  return <RouteErrorBoundary what="order" />;
}
