/**
 * The settings page's forms that the one save bar saves together: their names for the
 * merchant, their values as they post them, and the outcome of a save for each.
 */
import type { SerializeFrom } from "@remix-run/node";
import type { settingsPageData } from "../page.server";
import { type ActionData, fieldError } from "../../components/FormStatus";
import type { Draft } from "../../components/useDraft";

export const PARTS = [
  { intent: "save-settings", title: "Orders and payment" },
  { intent: "save-shipping", title: "Shipping" },
  { intent: "save-fx", title: "Exchange rates" },
  { intent: "save-pricing", title: "Pricing and stock" },
  { intent: "save-notifications", title: "Notifications" },
] as const;

export type PartIntent = (typeof PARTS)[number]["intent"];

/** The save bar's outcome (the action's `save-all`). */
export interface SaveAllData {
  ok: boolean;
  intent: "save-all";
  message: string;
  results: Exclude<ActionData, undefined>[];
}

/** The page's last post: one form's (connect, test email…) or the save bar's. */
export type PageResult = (ActionData & { redirectTo?: string }) | SaveAllData;

/** The save bar's outcome (a refusal of the whole post, "nothing to save", is plain ActionData). */
export function isSaveAll(r: PageResult): r is SaveAllData {
  return r?.intent === "save-all" && "results" in r;
}

/** The outcome of one form: its own post, or its part of the save bar's. */
export function resultOf(r: PageResult, intent: string): ActionData {
  if (!r) return undefined;
  if (isSaveAll(r)) return r.results.find((x) => x.intent === intent);
  return r.intent === intent ? r : undefined;
}

/** A refusal of one form (the successes are told once, by the page's toast). */
export function refusalOf(r: PageResult, intent: string): ActionData {
  const one = resultOf(r, intent);
  return one && !one.ok ? one : undefined;
}

/** Values as a form posts them: text, booleans as "true"/"false", no nested objects. */
export function asPosted(o: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(o)
      .filter(([, v]) => v === null || typeof v !== "object")
      .map(([k, v]) => [k, String(v ?? "")]),
  );
}

/** A form's field setter over posted values. */
export function setterOf<T extends Record<string, string>>(
  set: (next: (old: T) => T) => void,
): (k: keyof T) => (v: string | boolean) => void {
  return (k) => (v) => set((old) => ({ ...old, [k]: String(v) }));
}

/** What the settings page loads, as the browser receives it. */
export type SettingsData = SerializeFrom<typeof settingsPageData>;

/** What every form of the page gets: its values, its refusal, and the page's Save. */
export interface PartProps<T> {
  data: SettingsData;
  draft: Draft<T>;
  refusal: ActionData;
  /** The page's Save (Enter in a field saves every changed form, as the bar's Save does). */
  onSave: () => void;
}

/**
 * A form's field props over its draft: `text(k)` for a text field or a select (value, change,
 * the refusal's error for it), `check(k)` for a checkbox posted as "true"/"false".
 */
export function fieldsOf<T extends Record<string, string>>(
  draft: Draft<T>,
  refusal: ActionData,
  intent: string,
) {
  const set = setterOf<T>(draft.set);
  const err = (k: string) => fieldError(refusal, intent, k);
  return {
    set,
    err,
    text: (k: keyof T & string) => ({
      value: draft.values[k] ?? "",
      onChange: set(k),
      error: err(k),
    }),
    check: (k: keyof T & string) => ({ checked: draft.values[k] === "true", onChange: set(k) }),
  };
}
