/**
 * The orders list's confirmation of a bulk action (Pay now's cost, Cancel's warning...): what it
 * will do to the selection, and the form that starts the run.
 */
import { Form } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { useMemo } from "react";
import { BULK_LABELS, type BulkIntent, fits } from "../../order-fit";
import type { Row } from "./types";

/** What the action does, in the merchant's words (Pay now: what it costs). */
function effect(intent: BulkIntent, costCents: number): string {
  return intent === "pay-now"
    ? `${(costCents / 100).toFixed(2)} USD from the service balance.`
    : intent === "cancel"
      ? "They leave the pipeline and are not sent to the service. This cannot be undone."
      : intent === "hold"
        ? "They stop where they are until you release them."
        : intent === "release"
          ? "They go on at once (the review window and risk holds are skipped)."
          : "Each goes on from where it stopped; the results appear per order.";
}

/** What a bulk action will do to the selection, before it runs. */
export function BulkConfirm({
  intent,
  selected,
  clientKey,
  onSubmit,
  busy,
  onClose,
}: {
  intent: BulkIntent;
  selected: Row[];
  clientKey: string;
  onSubmit: (e: React.FormEvent) => void;
  busy: boolean;
  onClose: () => void;
}) {
  const fitting = useMemo(() => selected.filter((o) => fits(intent, o)), [intent, selected]);
  const left = selected.length - fitting.length;
  const label = BULK_LABELS[intent];
  const cost = fitting.reduce((a, o) => a + Math.round(Number(o.amount ?? 0) * 100), 0);
  const n = fitting.length;
  const orders = `${n} order${n === 1 ? "" : "s"}`;
  return (
    <Banner
      tone={intent === "cancel" ? "critical" : "warning"}
      title={`${label} ${orders}?`}
      onDismiss={onClose}
    >
      <BlockStack gap="200">
        <Text as="p">
          {effect(intent, cost)}
          {left > 0
            ? ` ${left} selected order${left === 1 ? " does" : "s do"} not fit and ${left === 1 ? "is" : "are"} left out.`
            : ""}
        </Text>
        <Form method="post" onSubmit={onSubmit}>
          <input type="hidden" name="intent" value={intent} />
          <input type="hidden" name="clientKey" value={clientKey} />
          {fitting.map((o) => (
            <input key={o.id} type="hidden" name="orderId" value={o.id} />
          ))}
          <InlineStack gap="200">
            <Button
              submit
              variant="primary"
              tone={intent === "cancel" ? "critical" : undefined}
              disabled={busy || n === 0}
            >
              {`${label} ${orders}`}
            </Button>
            <Button onClick={onClose}>Back</Button>
          </InlineStack>
        </Form>
      </BlockStack>
    </Banner>
  );
}
