/**
 * The order page's Actions card: what the merchant can do to the order now (pay, mark handled,
 * release, retry, hold, cancel), and the review window of a scheduled order. Which actions show
 * is app/workqueue/order-fit.ts's, the same as the orders list's.
 */
import { Form, useNavigation } from "@remix-run/react";
import { BlockStack, Button, Card, InlineStack, Text } from "@shopify/polaris";
import type { FormEvent } from "react";
import { ConfirmSubmit } from "../../../components/ConfirmSubmit";
import { useSubmitOnce } from "../../../components/SubmitOnce";
import { scheduledText } from "../../../orders/shop-time";
import { isScheduled } from "../../../orders/states";
import { BULK_LABELS, fittingActions } from "../../order-fit";
import { type OrderDetail, zoneName } from "./shared";

/** The order page's own labels; which actions show is order-fit's (the same as the list's). */
const ACTION_HELP: Record<string, string> = {
  retry: "send it on from where it stopped",
  hold: "stop it here until you release it",
  release: "let it go on now",
};

export function ActionsCard({ order }: { order: OrderDetail }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const actions = fittingActions(order);
  const scheduled = isScheduled(order);
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Actions
        </Text>
        {scheduled ? <ReviewWindow order={order} /> : null}
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
            .map((a) => (
              <MoveButton
                key={a}
                action={a}
                scheduled={scheduled}
                busy={busy}
                onSubmit={once.onSubmit}
              />
            ))}
          {actions.includes("cancel") ? (
            <ConfirmSubmit
              intent="cancel"
              label="Cancel order"
              title={`Cancel ${order.name}?`}
              tone="critical"
            >
              It leaves the pipeline and is not sent to the service; the shop order itself is not
              cancelled. This cannot be undone.
            </ConfirmSubmit>
          ) : null}
        </InlineStack>
      </BlockStack>
    </Card>
  );
}

/** When a scheduled order goes to the service, in the shop's time. */
function ReviewWindow({ order }: { order: OrderDetail }) {
  return (
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
  );
}

/** Release, retry or hold: one form each, sent once however often it is clicked. */
function MoveButton({
  action: a,
  scheduled,
  busy,
  onSubmit,
}: {
  action: "release" | "retry" | "hold";
  scheduled: boolean;
  busy: boolean;
  onSubmit: (event: FormEvent) => void;
}) {
  // A scheduled order's Release is "Place now": it skips the review window.
  const label = scheduled && a === "release" ? "Place now" : BULK_LABELS[a];
  const help =
    scheduled && a === "release" ? "send it to the service without waiting" : ACTION_HELP[a];
  return (
    <Form method="post" onSubmit={onSubmit}>
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
}
