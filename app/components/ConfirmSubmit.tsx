/**
 * A button whose action needs a second thought (Disconnect, sandbox off: real money from then
 * on): the first click says what will happen; only "Confirm" submits. No double submit: the
 * confirm button is disabled while the page is busy.
 *
 * Keyboard and focus: opening moves the focus into the confirmation (onto the button that keeps
 * things as they are, so a stray Enter changes nothing); Escape or that button closes it and the
 * focus goes back to the button that opened it. The keep button says what it keeps
 * (`keepLabel`, "Go back" unless the caller names it). While open, the confirmation marks itself
 * as being edited so a self-refreshing page leaves it alone.
 */
import { Form, useNavigation } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { editingProps } from "./useAutoRefresh";

export function ConfirmSubmit({
  intent,
  label,
  title,
  children,
  fields = {},
  tone,
  keepLabel = "Go back",
}: {
  intent: string;
  label: string;
  title: string;
  children: ReactNode;
  fields?: Record<string, string>;
  tone?: "critical";
  /** The button that closes the confirmation without doing anything, named for what it keeps. */
  keepLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  const busy = useNavigation().state !== "idle";
  const triggerRef = useRef<HTMLSpanElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  // Where the focus goes after the next render: into the confirmation, or back to its trigger.
  const moveFocus = useRef<"into" | "back" | null>(null);

  useEffect(() => {
    const where = moveFocus.current;
    moveFocus.current = null;
    if (where === "into") {
      boxRef.current?.querySelector<HTMLElement>("[data-confirm-keep] button")?.focus();
    } else if (where === "back") {
      triggerRef.current?.querySelector<HTMLElement>("button")?.focus();
    }
  }, [open]);

  const show = () => {
    moveFocus.current = "into";
    setOpen(true);
  };
  const close = () => {
    moveFocus.current = "back";
    setOpen(false);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  };

  if (!open) {
    return (
      <span ref={triggerRef} style={{ display: "contents" }}>
        <Button tone={tone} disabled={busy} onClick={show}>
          {label}
        </Button>
      </span>
    );
  }
  return (
    <div ref={boxRef} role="group" aria-label={title} onKeyDown={onKeyDown} {...editingProps(true)}>
      <Banner tone="warning" title={title} onDismiss={close}>
        <BlockStack gap="200">
          <Text as="p">{children}</Text>
          <Form method="post" onSubmit={close}>
            <input type="hidden" name="intent" value={intent} />
            {Object.entries(fields).map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
            <InlineStack gap="200">
              <Button submit variant="primary" tone={tone} disabled={busy}>
                {`Confirm: ${label.toLowerCase()}`}
              </Button>
              <span data-confirm-keep style={{ display: "contents" }}>
                <Button onClick={close}>{keepLabel}</Button>
              </span>
            </InlineStack>
          </Form>
        </BlockStack>
      </Banner>
    </div>
  );
}
