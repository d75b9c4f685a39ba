/**
 * Unsaved changes, as Shopify's admin shows them: while a form differs from what is saved, a
 * bar stays in view with Discard and Save, and leaving the page (a link, or closing the tab)
 * asks first. Rendered inside the form, so its Save button submits it.
 */
import { useBeforeUnload, useBlocker } from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import { useCallback } from "react";

export function SaveBar({
  dirty,
  busy,
  onDiscard,
  saveLabel = "Save",
}: {
  dirty: boolean;
  busy: boolean;
  onDiscard: () => void;
  saveLabel?: string;
}) {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && !busy && currentLocation.pathname !== nextLocation.pathname,
  );
  useBeforeUnload(
    useCallback(
      (e: BeforeUnloadEvent) => {
        if (dirty && !busy) e.preventDefault();
      },
      [dirty, busy],
    ),
  );
  if (blocker.state === "blocked") {
    return (
      <Banner tone="warning" title="Leave without saving?">
        <BlockStack gap="200">
          <Text as="p">Your changes on this page are not saved yet.</Text>
          <InlineStack gap="200">
            <Button onClick={() => blocker.reset()}>Stay</Button>
            <Button tone="critical" onClick={() => blocker.proceed()}>
              Leave and discard
            </Button>
          </InlineStack>
        </BlockStack>
      </Banner>
    );
  }
  if (!dirty) return null;
  return (
    <div
      data-save-bar
      style={{
        position: "sticky",
        top: 0,
        zIndex: 400,
        background: "var(--p-color-bg-inverse, #1a1a1a)",
        borderRadius: 8,
        padding: "8px 12px",
      }}
    >
      <InlineStack align="space-between" blockAlign="center" gap="200">
        <Text as="span" tone="text-inverse" fontWeight="semibold">
          Unsaved changes
        </Text>
        <InlineStack gap="200">
          <Button onClick={onDiscard} disabled={busy}>
            Discard
          </Button>
          <Button submit variant="primary" disabled={busy}>
            {saveLabel}
          </Button>
        </InlineStack>
      </InlineStack>
    </div>
  );
}
