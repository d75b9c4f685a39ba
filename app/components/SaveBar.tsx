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
import { type Location, useBeforeUnload, useBlocker, useNavigate } from "@remix-run/react";
import { SaveBar as AppBridgeSaveBar } from "@shopify/app-bridge-react";
import { BlockStack, Box, Button, InlineStack, Text } from "@shopify/polaris";
import {
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";

/** "Orders and payment, Pricing and stock and Notifications". */
export function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * Leaving the page with changes asks first: a link of the app (the router's navigation held
 * until the merchant answers) or closing the tab (the browser's own question).
 */
function useLeavePrompt(dirty: boolean) {
  const navigate = useNavigate();
  // Set once the merchant chose to leave: the navigation then goes through.
  const leaving = useRef(false);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      !leaving.current && dirty && currentLocation.pathname !== nextLocation.pathname,
  );
  // Where the merchant asked to go. Kept here, not only in the router's blocker: the router
  // forgets a blocked navigation when another one (a reload of the page's data) completes,
  // and the question must not vanish under the merchant's eyes.
  const [leaveTo, setLeaveTo] = useState<Location | null>(null);
  useEffect(() => {
    if (blocker.state === "blocked") setLeaveTo(blocker.location);
  }, [blocker]);
  const stay = () => {
    if (blocker.state === "blocked") blocker.reset();
    setLeaveTo(null);
  };
  const leave = () => {
    const to = leaveTo;
    setLeaveTo(null);
    leaving.current = true;
    if (blocker.state === "blocked") blocker.proceed();
    else if (to) navigate(to);
  };
  useBeforeUnload(
    useCallback(
      (e: BeforeUnloadEvent) => {
        if (dirty && !leaving.current) e.preventDefault();
      },
      [dirty],
    ),
  );
  return { asking: leaveTo !== null, stay, leave };
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
  const leaving = useLeavePrompt(dirty);
  const [discarding, setDiscarding] = useState(false);
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
        <PageSaveBar
          what={what}
          busy={busy}
          onSave={onSave}
          onDiscard={() => setDiscarding(true)}
        />
      ) : null}
      <AskFirst
        open={discarding && dirty}
        title="Discard all unsaved changes?"
        keep="Keep editing"
        act="Discard changes"
        onKeep={() => setDiscarding(false)}
        onAct={() => {
          setDiscarding(false);
          onDiscard();
        }}
      >
        {`What you changed in ${what} goes back to what is saved.`}
      </AskFirst>
      <AskFirst
        open={leaving.asking}
        title="Leave without saving?"
        keep="Stay"
        act="Leave and discard"
        onKeep={leaving.stay}
        onAct={leaving.leave}
      >
        {`Your changes in ${what || "this page"} are not saved yet. Stay to save them, or leave and lose them.`}
      </AskFirst>
    </>
  );
}

/** Our own bar (outside Shopify's admin), kept at the top of the screen while the page scrolls. */
function PageSaveBar(p: {
  what: string;
  busy: boolean;
  onSave: () => void;
  onDiscard: () => void;
}) {
  return (
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
          in {p.what}
        </Text>
        <InlineStack gap="200">
          <Button onClick={p.onDiscard} disabled={p.busy}>
            Discard
          </Button>
          <Button variant="primary" onClick={p.onSave} disabled={p.busy} loading={p.busy}>
            Save
          </Button>
        </InlineStack>
      </InlineStack>
    </div>
  );
}

/**
 * A question in the middle of the screen, over the page: fixed, so it is in view wherever the
 * page is scrolled, at any width. The focus goes to the safe answer (the first button); Escape
 * or a click beside it is that answer too; Tab stays in the dialog.
 */
function AskFirst({
  open,
  title,
  keep,
  act,
  onKeep,
  onAct,
  children,
}: {
  open: boolean;
  title: string;
  keep: string;
  act: string;
  onKeep: () => void;
  onAct: () => void;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const before = document.activeElement as HTMLElement | null;
    box.current?.querySelector("button")?.focus();
    // Back where the merchant was when the question goes.
    return () => before?.focus?.({ preventScroll: true });
  }, [open]);
  if (!open) return null;
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      onKeep();
    } else if (e.key === "Tab") {
      const buttons = [...(box.current?.querySelectorAll("button") ?? [])];
      const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
      const next = (at + (e.shiftKey ? -1 : 1) + buttons.length) % buttons.length;
      e.preventDefault();
      buttons[next]?.focus();
    }
  };
  return (
    <div
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onKeep();
      }}
      style={{
        position: "fixed",
        inset: 0,
        zIndex: 519,
        background: "rgba(0, 0, 0, 0.5)",
        display: "flex",
        alignItems: "flex-start",
        justifyContent: "center",
        padding: "min(18vh, 160px) 16px 16px",
      }}
    >
      <div
        ref={box}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-text`}
        onKeyDown={onKeyDown}
        style={{
          width: "100%",
          maxWidth: 480,
          background: "var(--p-color-bg-surface, #fff)",
          borderRadius: 12,
          boxShadow: "0 8px 24px rgba(0, 0, 0, 0.3)",
        }}
      >
        <Box padding="400">
          <BlockStack gap="300">
            <Text as="h2" variant="headingMd" id={`${id}-title`}>
              {title}
            </Text>
            <Text as="p" id={`${id}-text`}>
              {children}
            </Text>
            <InlineStack align="end" gap="200">
              <Button onClick={onKeep}>{keep}</Button>
              <Button variant="primary" tone="critical" onClick={onAct}>
                {act}
              </Button>
            </InlineStack>
          </BlockStack>
        </Box>
      </div>
    </div>
  );
}
