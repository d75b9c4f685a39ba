/**
 * Pages that keep themselves up to date (orders move on their own: webhooks, jobs) and never
 * touch what the merchant is doing. A refresh is skipped while:
 * - the tab is hidden;
 * - the page is loading or submitting (its own refresh, or the merchant's click);
 * - the focus is in a field (typing, choosing), or a part of the page says it is being edited
 *   (`data-editing` on an element: a form that differs from what is saved, an open
 *   confirmation). Such a part marks itself with `editingProps(true)`.
 * It goes on by itself once the merchant leaves the field, saves or discards.
 */
import { useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";

/** The attribute a part of the page carries while it is being edited. */
export const EDITING_ATTRIBUTE = "data-editing";

/** Spread on a form or card: `<div {...editingProps(dirty)}>`. */
export function editingProps(editing: boolean): Record<string, string | undefined> {
  return { [EDITING_ATTRIBUTE]: editing ? "true" : undefined };
}

const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);
/** Inputs that are not typed into: focusing one is not editing. */
const NOT_TYPED = new Set(["button", "submit", "reset", "checkbox", "radio", "hidden", "file"]);

/** True while the merchant is typing in a field or a part of the page is being edited. */
export function pageIsBeingEdited(doc: Document = document): boolean {
  const active = doc.activeElement as HTMLElement | null;
  if (active && active !== doc.body) {
    if (active.isContentEditable) return true;
    if (TYPING.has(active.tagName)) {
      const type = (active as HTMLInputElement).type?.toLowerCase?.() ?? "";
      if (active.tagName !== "INPUT" || !NOT_TYPED.has(type)) return true;
    }
  }
  return doc.querySelector(`[${EDITING_ATTRIBUTE}="true"]`) !== null;
}

export function useAutoRefresh({
  every = 4000,
  enabled = true,
}: { every?: number; enabled?: boolean } = {}) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  // The latest states, read by the timer without restarting it on every render.
  const busy = useRef(false);
  busy.current = revalidator.state !== "idle" || navigation.state !== "idle";
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  useEffect(() => {
    if (!enabled) return;
    const t = setInterval(() => {
      if (busy.current) return;
      if (document.visibilityState !== "visible") return;
      if (pageIsBeingEdited()) return;
      revalidate.current();
    }, every);
    return () => clearInterval(t);
  }, [every, enabled]);
}
