/** Form posts parsed with zod, errors keyed by field (the first message of each field). */
import type { z } from "zod";

export type FieldErrors = Record<string, string>;

/** What a page's action answers: a message for a toast, or errors by field ("form" for all). */
export type IntentResult =
  | { ok: true; intent: string; message: string }
  | { ok: false; intent: string; errors: FieldErrors };

export type FormResult<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors };

/**
 * The post's form; a body that is not a form (JSON on a form route, multipart without its
 * boundary or cut short) is a 400, never a server error.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    throw new Response("The form could not be read.", { status: 400 });
  }
}

export function formObject(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (typeof v === "string") out[k] = v;
  return out;
}

export function parseForm<S extends z.ZodType>(schema: S, form: FormData): FormResult<z.output<S>> {
  const parsed = schema.safeParse(formObject(form));
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.error.issues)
    errors[String(issue.path[0] ?? "form")] ??= issue.message;
  return { ok: false, errors };
}
