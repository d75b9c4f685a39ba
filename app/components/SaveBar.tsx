/**
 * Unsaved changes, as Shopify's admin shows them: one bar for the whole page, from the first
 * change of any of its forms until they are saved or discarded. Save saves every changed form;
 * Discard asks first. Leaving the page (a link of the app, or closing the tab) asks first, in a
 * dialog in the middle of the screen, wherever the merchant has scrolled to.
 *
 * Inside Shopify's admin the bar is App Bridge's contextual save bar (`ui-save-bar`, with its
 * own discard confirmation); in a plain browser (the sandbox) it is our own bar, kept at the
 * top of the screen while the page scrolls. Render it once, before the page's content.
 */
import { useBeforeUnload, useBlocker } from "@remix-run/react";
import { SaveBar as AppBridgeSaveBar } from "@shopify/app-bridge-react";
import { Button, InlineStack, Modal, Text } from "@shopify/polaris";
import { useCallback, useState } from "react";

/** "Orders and payment, Pricing and stock and Notifications". */
export function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

export function SaveBar({
  changed,
  busy,
  embedded,
  onSave,
  onDiscard,
}: {
  /** The names of the changed parts of the page (none: nothing to save, no bar). */
  changed: readonly string[];
  /** A save (or another post of the page) is on its way: Save and Discard wait. */
  busy: boolean;
  /** Inside Shopify's admin: App Bridge's bar. */
  embedded: boolean;
  onSave: () => void;
  onDiscard: () => void;
}) {
  const dirty = changed.length > 0;
  const what = listOf(changed);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && currentLocation.pathname !== nextLocation.pathname,
  );
  useBeforeUnload(
    useCallback(
      (e: BeforeUnloadEvent) => {
        if (dirty) e.preventDefault();
      },
      [dirty],
    ),
  );
  const [discarding, setDiscarding] = useState(false);
  const stay = () => blocker.reset?.();
  return (
    <>
      {embedded ? (
        <AppBridgeSaveBar id="page-save-bar" open={dirty} discardConfirmation>
          <button
            variant="primary"
            loading={busy ? "" : undefined}
            disabled={busy}
            onClick={onSave}
          >
            Save
          </button>
          <button disabled={busy} onClick={onDiscard}>
            Discard
          </button>
        </AppBridgeSaveBar>
      ) : dirty ? (
        <div
          data-save-bar
          role="region"
          aria-label="Unsaved changes"
          style={{
            position: "sticky",
            top: 0,
            zIndex: 400,
            background: "var(--p-color-bg-inverse, #1a1a1a)",
            padding: "10px 16px",
            boxShadow: "0 2px 8px rgba(0,0,0,.2)",
          }}
        >
          <InlineStack align="space-between" blockAlign="center" gap="200">
            <Text as="p" tone="text-inverse">
              <Text as="span" fontWeight="semibold">
                Unsaved changes
              </Text>{" "}
              in {what}
            </Text>
            <InlineStack gap="200">
              <Button onClick={() => setDiscarding(true)} disabled={busy}>
                Discard
              </Button>
              <Button variant="primary" onClick={onSave} disabled={busy} loading={busy}>
                Save
              </Button>
            </InlineStack>
          </InlineStack>
        </div>
      ) : null}
      <Modal
        open={discarding && dirty}
        onClose={() => setDiscarding(false)}
        title="Discard all unsaved changes?"
        primaryAction={{
          content: "Discard changes",
          destructive: true,
          onAction: () => {
            setDiscarding(false);
            onDiscard();
          },
        }}
        secondaryActions={[{ content: "Keep editing", onAction: () => setDiscarding(false) }]}
      >
        <Modal.Section>
          <Text as="p">{`What you changed in ${what} goes back to what is saved.`}</Text>
        </Modal.Section>
      </Modal>
      <Modal
        open={blocker.state === "blocked"}
        onClose={stay}
        title="Leave without saving?"
        primaryAction={{
          content: "Leave and discard",
          destructive: true,
          onAction: () => blocker.proceed?.(),
        }}
        secondaryActions={[{ content: "Stay", onAction: stay }]}
      >
        <Modal.Section>
          <Text as="p">
            {`Your changes in ${what || "this page"} are not saved yet. Stay to save them, or leave and lose them.`}
          </Text>
        </Modal.Section>
      </Modal>
    </>
  );
}
