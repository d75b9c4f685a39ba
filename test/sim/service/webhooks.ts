/**
 * Webhook subscription (webhook/set) and deliveries of ORDER and LOGISTIC events, in the
 * shapes of DESIGN §8: `{messageId, type, messageType, params, openId}`, header
 * `sign: Base64(HMAC-SHA256(key = openId, raw body))`, 3-second reply time-out, non-200 retried
 * after 5 minutes on the simulator clock at most 3 times, and deliveries of an account paused
 * once more than half of its attempts failed, until webhook/set is called again.
 */
import { createHmac, randomUUID } from "node:crypto";
import { isIP } from "node:net";
import type { SimClock } from "./clock";
import type { Ctx } from "./context";
import { Codes, SvcFault, paramError } from "./envelope";
import type { Faults } from "./faults";
import type { Account, SimState, WebhookSection } from "./state";
import { asObject, type Json } from "./validate";

export const WEBHOOK_TIMEOUT_MS = 3000;
export const RETRY_DELAY_MS = 5 * 60_000;
export const MAX_RETRIES = 3;
/** Attempts an account needs before the failure ratio can pause its deliveries. */
export const PAUSE_MIN_ATTEMPTS = 4;

export type EventType = "PRODUCT" | "VARIANT" | "STOCK" | "ORDER" | "ORDERSPLIT" | "LOGISTIC";

export interface Delivery {
  messageId: string;
  type: EventType;
  messageType: string;
  accountId: string;
  url: string;
  attempts: number;
  delivered: boolean;
  dropped: boolean; // lost by an injected fault: never sent
  gaveUp: boolean;
  lastStatus?: number | string;
  nextAttemptAt: number;
  body: unknown;
  raw: string;
}

const SECTION_OF: Record<EventType, "product" | "stock" | "order" | "logistics"> = {
  PRODUCT: "product",
  VARIANT: "product",
  STOCK: "stock",
  ORDER: "order",
  ORDERSPLIT: "order",
  LOGISTIC: "logistics",
};

export function signBody(openId: string, raw: string): string {
  return createHmac("sha256", openId).update(raw).digest("base64");
}

export class WebhookDispatcher {
  readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly state: SimState,
    private readonly clock: SimClock,
    private readonly faults: Faults,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.runDue(), 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Queues an event for the account's subscribed section and starts delivering it. */
  emit(account: Account, type: EventType, messageType: string, params: Json): Delivery | undefined {
    const url = this.sectionUrl(account, type);
    if (!url) return undefined;
    const body = { messageId: randomUUID(), type, messageType, params, openId: account.openId };
    const delivery: Delivery = {
      messageId: body.messageId,
      type,
      messageType,
      accountId: account.accountId,
      url,
      attempts: 0,
      delivered: false,
      dropped: false,
      gaveUp: false,
      nextAttemptAt: this.clock.now(),
      body,
      raw: JSON.stringify(body),
    };
    this.deliveries.push(delivery);
    if (this.faults.dropWebhook()) delivery.dropped = true;
    else this.runDue();
    return delivery;
  }

  /** Runs every due delivery and waits for all deliveries under way. */
  async deliverPending(): Promise<void> {
    await Promise.all([...this.inFlight]);
    this.runDue();
    await Promise.all([...this.inFlight]);
  }

  /** webhook/set resets the failure statistics and lifts a pause. */
  resetStats(account: Account): void {
    account.webhooks.paused = false;
    account.webhooks.attempts = 0;
    account.webhooks.failures = 0;
  }

  private sectionUrl(account: Account, type: EventType): string | undefined {
    const section: WebhookSection | undefined = account.webhooks[SECTION_OF[type]];
    if (!section || section.type !== "ENABLE") return undefined;
    return section.callbackUrls[0];
  }

  private runDue(): void {
    const now = this.clock.now();
    for (const d of this.deliveries) {
      if (d.delivered || d.dropped || d.gaveUp || d.nextAttemptAt > now) continue;
      const account = this.state.accounts.get(d.accountId);
      if (!account || account.webhooks.paused) continue;
      d.nextAttemptAt = Number.POSITIVE_INFINITY; // claimed until the attempt settles
      const p = this.attempt(d, account).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async attempt(d: Delivery, account: Account): Promise<void> {
    const url = this.sectionUrl(account, d.type);
    if (!url) {
      d.gaveUp = true; // the section was cancelled meanwhile
      return;
    }
    d.url = url;
    const copies = d.attempts === 0 && this.faults.duplicateWebhook() ? 2 : 1;
    let ok = false;
    for (let i = 0; i < copies; i++) ok = (await this.post(d, account)) || ok;
    const hooks = account.webhooks;
    if (ok) {
      d.delivered = true;
      return;
    }
    hooks.failures += 1;
    if (d.attempts > MAX_RETRIES) d.gaveUp = true;
    else d.nextAttemptAt = this.clock.now() + RETRY_DELAY_MS;
    if (hooks.attempts >= PAUSE_MIN_ATTEMPTS && hooks.failures * 2 > hooks.attempts)
      hooks.paused = true;
  }

  private async post(d: Delivery, account: Account): Promise<boolean> {
    d.attempts += 1;
    account.webhooks.attempts += 1;
    try {
      const res = await fetch(d.url, {
        method: "POST",
        headers: { "content-type": "application/json", sign: signBody(account.openId, d.raw) },
        body: d.raw,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      d.lastStatus = res.status;
      await res.arrayBuffer().catch(() => undefined);
      return res.status === 200;
    } catch (e) {
      d.lastStatus = e instanceof Error ? e.name : "error";
      return false;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// webhook/set

const SECTIONS = ["product", "stock", "order", "logistics"] as const;

/** Why an address is refused, or undefined when it is acceptable. */
export function addressProblem(raw: string, allowLoopback: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `callback address ${raw} is not a valid URL`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const local =
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "0.0.0.0" ||
    host === "::" ||
    host === "::1" ||
    (isIP(host) === 4 && isPrivateV4(host)) ||
    host.startsWith("fc") ||
    host.startsWith("fd") ||
    host.startsWith("fe80:");
  if (allowLoopback) {
    return url.protocol === "https:" || url.protocol === "http:"
      ? undefined
      : `callback address must use https`;
  }
  if (local) return `callback address host ${host} is a local or loopback address`;
  if (url.protocol !== "https:")
    return `callback address must use https, got ${url.protocol.replace(":", "")}`;
  return undefined;
}

function isPrivateV4(host: string): boolean {
  const [a = 0, b = 0] = host.split(".").map(Number);
  return (
    a === 127 ||
    a === 10 ||
    a === 0 ||
    (a === 192 && b === 168) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 169 && b === 254)
  );
}

export function webhookSet(ctx: Ctx): boolean {
  const body = ctx.body;
  const parsed: Partial<Record<(typeof SECTIONS)[number], WebhookSection>> = {};
  let any = false;
  for (const name of SECTIONS) {
    const raw = body[name];
    if (raw === undefined || raw === null) continue;
    any = true;
    const section = asObject(raw, name);
    const type = section.type;
    if (type !== "ENABLE" && type !== "CANCEL")
      throw paramError(`${name}.type must be ENABLE or CANCEL`);
    const urls = section.callbackUrls ?? [];
    if (!Array.isArray(urls) || urls.some((u) => typeof u !== "string")) {
      throw paramError(`${name}.callbackUrls must be a list of strings`);
    }
    if (urls.length > 1)
      throw paramError(`${name}: only one callback address per section is supported`);
    if (type === "ENABLE") {
      const url = urls[0] as string | undefined;
      if (!url) throw paramError(`${name}.callbackUrls must hold one address to ENABLE`);
      const problem = addressProblem(url, ctx.rt.options.allowLoopbackWebhooks);
      if (problem) throw new SvcFault(Codes.WEBHOOK_ADDRESS_INVALID, problem);
    }
    parsed[name] = { type, callbackUrls: urls as string[] };
  }
  if (!any) throw paramError("at least one of product, stock, order, logistics is required");
  Object.assign(ctx.account.webhooks, parsed);
  ctx.rt.webhooks.resetStats(ctx.account);
  return true;
}
