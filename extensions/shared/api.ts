/**
 * The app's backend as the extensions call it. In Shopify's admin, `fetch` resolves a relative
 * address against the app's `application_url` and adds the session token (`Authorization:
 * Bearer …`) itself, so nothing here handles a token.
 */
import type { ExtensionIntent, ExtensionOrder, ExtensionRun } from "../../app/extension-api/types";
import { isOrderState, STATE_TONES } from "../../app/orders/states";

export type { ExtensionIntent, ExtensionOrder, ExtensionRun };
export { isOrderState, STATE_LABELS } from "../../app/orders/states";
export type HandledOrder = Extract<ExtensionOrder, { handled: true }>;

/** What the merchant reads when the app cannot be reached or refuses. */
export class AppError extends Error {}

const UNREACHABLE = "The app could not be reached. Check your connection and try again.";

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new AppError(UNREACHABLE);
  }
  const body = (await res.json().catch(() => null)) as ({ error?: string } & T) | null;
  if (res.status === 401) throw new AppError("Your session expired. Reload the page.");
  if (!res.ok || body === null) {
    throw new AppError(res.status >= 500 || !body?.error ? UNREACHABLE : body.error);
  }
  return body;
}

export async function loadOrders(ids: string[]): Promise<ExtensionOrder[]> {
  const query = ids.map((id) => `id=${encodeURIComponent(id)}`).join("&");
  return (await call<{ orders: ExtensionOrder[] }>(`/api/ext/orders?${query}`)).orders;
}

/** One request key per merchant click: the backend acts once for a key, however often sent. */
export function newKey(): string {
  return crypto.randomUUID();
}

export async function startAction(
  intent: ExtensionIntent,
  ids: string[],
  key: string,
): Promise<{ runId: string; message: string; unknown: string[] }> {
  return call(`/api/ext/orders`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ intent, ids, key }),
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for a started action to finish (the app's worker runs it), up to about a minute. */
export async function waitForRun(runId: string, everyMs = 1000): Promise<ExtensionRun> {
  for (let i = 0; ; i++) {
    const { run } = await call<{ run: ExtensionRun }>(`/api/ext/runs/${encodeURIComponent(runId)}`);
    if (run.finished || i >= 60) return run;
    await sleep(everyMs);
  }
}

/** One merchant click: the action started (one key) and waited for; its run with each result. */
export async function runAction(
  intent: ExtensionIntent,
  ids: string[],
): Promise<{ run: ExtensionRun; message: string }> {
  const started = await startAction(intent, ids, newKey());
  return { run: await waitForRun(started.runId), message: started.message };
}

/** What the merchant reads of a failure. */
export function errorText(e: unknown): string {
  return e instanceof AppError ? e.message : String(e);
}

/** The admin's `shopify` global, typed by the extension's target. */
export function host<Api>(): Api {
  return (globalThis as unknown as { shopify: Api }).shopify;
}

/** Sends an order on: a held order is released, a failed one retried. */
export function sendIntent(o: HandledOrder): ExtensionIntent | null {
  if (o.actions.includes("release")) return "release";
  // Retry also fits a paid order with a problem (its tracking is checked again): not a send.
  if (o.state === "FAILED" && o.actions.includes("retry")) return "retry";
  return null;
}

/** The one action the order block offers: the one that fits the order's state, if any. */
export function blockAction(o: HandledOrder): { intent: ExtensionIntent; label: string } | null {
  const has = (i: ExtensionIntent) => o.actions.includes(i);
  if (o.state === "FAILED" || o.problem)
    return has("retry") ? { intent: "retry", label: "Retry" } : null;
  if (has("pay-now")) return { intent: "pay-now", label: "Pay now" };
  if (o.state === "HELD" && has("release")) return { intent: "release", label: "Release" };
  return null;
}

type Tone = "info" | "success" | "warning" | "critical" | "neutral";

/** A state's badge tone for the admin's components (no "new" tone there: "info"). */
export function stateTone(state: string): Tone {
  const tone = isOrderState(state) ? STATE_TONES[state] : "neutral";
  return tone === "new" ? "info" : tone;
}

/** "12.5" USD → "$12.50 USD" (the service's cost is in USD). */
export function money(m: { amount: string; currency: string }): string {
  const n = Number(m.amount);
  if (!Number.isFinite(n)) return `${m.amount} ${m.currency}`;
  return `${m.currency === "USD" ? "$" : ""}${n.toFixed(2)} ${m.currency}`;
}
