/**
 * The field helpers every saved form of the settings page shares (each form lives in its
 * capability's ui/ folder, in the frame ./PartForm.tsx): its values as it posts them, its
 * field props over its draft, and the props the page gives it.
 */
import type { SerializeFrom } from "@remix-run/node";
import type { ShopSettings } from "../settings.server";
import { type ActionData, fieldError } from "./FormStatus";
import type { Draft } from "./useDraft";

/** The shop's saved settings, as the browser receives them. */
export type SavedSettings = SerializeFrom<ShopSettings>;

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

/**
 * What every form of the page gets: the page's data it reads (`D`: the saved settings unless
 * told), its values, its refusal, and the page's Save.
 */
export interface PartProps<T, D = { settings: SavedSettings }> {
  data: D;
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
