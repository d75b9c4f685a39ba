/**
 * What every form of the settings page answers, and the helpers its actions share: a refusal
 * by field, a form of settings fields validated and stored, and "saved; held orders checked
 * again". Each capability's action (app/shipping/settings-action.server.ts and its siblings)
 * builds on these; the page (app/settings-forms/page.server.ts) dispatches to them by intent.
 */
import type { PrismaClient } from "@prisma/client";
import type { z } from "zod";
import type { FreightOption } from "../svc/logistics.server";
import { type ShopSettings, settingsSchema, updateSettings } from "../settings.server";
import { type FieldErrors, parseForm } from "./forms.server";

export type SettingsActionResult =
  | {
      ok: true;
      intent: string;
      message: string;
      warning?: string | null;
      redirectTo?: string;
      /** intent "quote": the methods offered for a destination. */
      quote?: { to: string; from: string; options: FreightOption[] };
    }
  | { ok: false; intent: string; errors: FieldErrors };

/** One form's action: the page's post with its `intent`, answered for that form. */
export type SettingsIntentAction = (
  db: PrismaClient,
  shop: string,
  form: FormData,
  opts: { sandbox: boolean },
) => Promise<SettingsActionResult>;

export function fail(intent: string, errors: FieldErrors): SettingsActionResult {
  return { ok: false, intent, errors };
}

/** "Settings saved; 2 held orders are checked again now". */
export function saved(intent: string, what: string, rechecked: number): SettingsActionResult {
  const again = rechecked
    ? `; ${rechecked} held order${rechecked === 1 ? " is" : "s are"} checked again now`
    : "";
  return { ok: true, intent, message: `${what}${again}` };
}

/** The settings schema narrowed to one form's fields (each validated as the schema says). */
export function settingsFields<const K extends keyof ShopSettings>(fields: readonly K[]) {
  return settingsSchema.pick(
    Object.fromEntries(fields.map((k) => [k, true])) as { [P in K]: true },
  );
}

/** A form of settings fields only: validated, stored, and said in `message`. */
export async function saveFields(
  db: PrismaClient,
  shop: string,
  intent: string,
  schema: z.ZodType<Partial<ShopSettings>>,
  form: FormData,
  message: (saved: ShopSettings) => string,
): Promise<SettingsActionResult> {
  const parsed = parseForm(schema, form);
  if (!parsed.ok) return fail(intent, parsed.errors);
  const r = await updateSettings(db, shop, parsed.data);
  if (!r.ok) return fail(intent, r.errors);
  return { ok: true, intent, message: message(r.settings) };
}
