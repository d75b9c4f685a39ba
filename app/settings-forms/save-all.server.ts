/**
 * The settings page's one save bar: the changed forms posted together, each saved by its own
 * action (page.server.ts) in a fixed order, with the outcome of each.
 */
import type { PrismaClient } from "@prisma/client";
import { fail, type SettingsActionResult, settingsAction } from "./page.server";

/** The forms of settings the page's one save bar saves together, in this order. */
export const SAVE_INTENTS = [
  "save-settings",
  "save-shipping",
  "save-fx",
  "save-pricing",
  "save-notifications",
] as const;

/** What the save bar's Save did: each changed form saved, or refused with its fields' errors. */
export interface SaveAllResult {
  /** Every form sent was saved. */
  ok: boolean;
  intent: "save-all";
  /** The forms saved, said in the merchant's words ("Settings saved. Pricing saved: …"). */
  message: string;
  results: SettingsActionResult[];
}

const UNREADABLE = "The changes could not be read: reload the page and change them again.";

/**
 * The save bar's Save: `part` fields, each one form as it posts itself (URL-encoded, with its
 * own `intent`). Each form is validated and saved as if posted alone: one refused form changes
 * nothing of its own and does not stop the others. A post that is not such a list changes
 * nothing at all.
 */
export async function saveAllSettings(
  db: PrismaClient,
  shop: string,
  form: FormData,
  opts: { sandbox: boolean },
): Promise<SaveAllResult | SettingsActionResult> {
  const raw = form.getAll("part");
  if (raw.length === 0) return fail("save-all", { form: "Nothing to save: nothing was changed." });
  if (raw.length > SAVE_INTENTS.length) return fail("save-all", { form: UNREADABLE });
  const parts = new Map<string, FormData>();
  for (const value of raw) {
    if (typeof value !== "string") return fail("save-all", { form: UNREADABLE });
    const one = new FormData();
    for (const [k, v] of new URLSearchParams(value)) one.append(k, v);
    const intent = String(one.get("intent") ?? "");
    const known = (SAVE_INTENTS as readonly string[]).includes(intent);
    if (!known || parts.has(intent)) return fail("save-all", { form: UNREADABLE });
    parts.set(intent, one);
  }
  const results: SettingsActionResult[] = [];
  for (const intent of SAVE_INTENTS) {
    const one = parts.get(intent);
    if (one) results.push(await settingsAction(db, shop, one, opts));
  }
  const saved = results.filter((r) => r.ok).map((r) => (r.ok ? r.message : ""));
  return {
    ok: saved.length === results.length,
    intent: "save-all",
    message: saved.join(". "),
    results,
  };
}
