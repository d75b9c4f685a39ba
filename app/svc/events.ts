/**
 * The service's event types, declared once (DESIGN §8): for each, how the intake routes it to a
 * shop and which webhook/set section subscribes to it. The intake (app/webhooks/svc-route.server.ts),
 * the webhook registration (app/svc-account/webhooks.server.ts) and the worker's handlers
 * (app/worker/events.server.ts, one per type) all derive from this table: a new event type is
 * one row here and one handler there.
 *
 * Routing: `order` events go to the shop(s) that own the order they name; `account` events
 * (the catalog's) go to every shop of the service account.
 */
import type { WebhookSettings } from "./webhooks.server";

export const SVC_EVENTS = {
  ORDER: { routing: "order", section: "order" },
  ORDERSPLIT: { routing: "order", section: "order" },
  LOGISTIC: { routing: "order", section: "logistics" },
  PRODUCT: { routing: "account", section: "product" },
  VARIANT: { routing: "account", section: "product" },
  STOCK: { routing: "account", section: "stock" },
} as const satisfies Record<
  string,
  { routing: "order" | "account"; section: keyof WebhookSettings }
>;

export type SvcEventType = keyof typeof SVC_EVENTS;

/** Every event type a handler exists for. */
export const SVC_EVENT_TYPES = Object.keys(SVC_EVENTS) as SvcEventType[];

export function isSvcEventType(type: string): type is SvcEventType {
  return Object.hasOwn(SVC_EVENTS, type);
}

/** The webhook/set sections the app subscribes to: those of its event types. */
export const WEBHOOK_SECTIONS = [...new Set(SVC_EVENT_TYPES.map((t) => SVC_EVENTS[t].section))];

/** The same settings for every section the app subscribes to (ENABLE with the address, or CANCEL). */
export function everySection<S>(section: S): Record<(typeof WEBHOOK_SECTIONS)[number], S> {
  return Object.fromEntries(WEBHOOK_SECTIONS.map((s) => [s, section])) as Record<
    (typeof WEBHOOK_SECTIONS)[number],
    S
  >;
}
