/**
 * A button whose action needs a second thought (Disconnect, sandbox off: real money from then
 * on): the first click says what will happen; only "Confirm" submits. No double submit: the
 * confirm button is disabled while the page is busy.
 */
import { Form, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { type ReactNode, useState } from "react";

export function ConfirmSubmit({
  intent,
  label,
  title,
  children,
  fields = {},
  tone,
}: {
  intent: string;
  label: string;
  title: string;
  children: ReactNode;
  fields?: Record<string, string>;
  tone?: "critical";
}) {
  const [open, setOpen] = useState(false);
  const busy = useNavigation().state !== "idle";
  if (!open) {
    return (
      <Button tone={tone} disabled={busy} onClick={() => setOpen(true)}>
        {label}
      </Button>
    );
  }
  return (
    <Banner tone="warning" title={title} onDismiss={() => setOpen(false)}>
      <BlockStack gap="200">
        <Text as="p">{children}</Text>
        <Form method="post" onSubmit={() => setOpen(false)}>
          <input type="hidden" name="intent" value={intent} />
          {Object.entries(fields).map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
          <InlineStack gap="200">
            <Button submit variant="primary" tone={tone} disabled={busy}>
              {`Confirm: ${label.toLowerCase()}`}
            </Button>
            <Button onClick={() => setOpen(false)}>Cancel</Button>
          </InlineStack>
        </Form>
      </BlockStack>
    </Banner>
  );
}
