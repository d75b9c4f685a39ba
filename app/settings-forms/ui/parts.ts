/**
 * The settings page's forms that the one save bar saves together: their names for the
 * merchant and the outcome of a save for each (their field helpers are
 * app/components/part-fields.ts).
 */
import type { SerializeFrom } from "@remix-run/node";
import type { settingsPageData } from "../page.server";
import type { ActionData } from "../../components/FormStatus";

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

/** What the settings page loads, as the browser receives it. */
export type SettingsData = SerializeFrom<typeof settingsPageData>;
