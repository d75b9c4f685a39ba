/**
 * Each event source declared once, on the worker's side: the job handler of every service event
 * type (app/svc/events.ts) and of every Shopify topic the app subscribes to
 * (app/webhooks/shopify-topics.server.ts), from the capability that owns it. Each table is typed
 * by its source's own list, so a new type or topic does not compile without its handler; the
 * intake's routing and the webhook registration read the same lists.
 */
import { catalogEvent } from "../catalog/jobs.server";
import { productDeleted, productUpdated } from "../connections/product-events.server";
import { jobKindFor } from "../events/store.server";
import { type DepsFactory, orderEventHandlers } from "../fulfilment/handlers.server";
import type { JobHandler } from "../jobs/handler";
import {
  appScopesUpdateJob,
  appUninstalledJob,
  customersDataRequestJob,
  customersRedactJob,
  shopRedactJob,
} from "../shops/jobs.server";
import type { SvcEventType } from "../svc/events";
import type { ShopifyTopic } from "../webhooks/shopify-topics.server";

type OrderEvents = ReturnType<typeof orderEventHandlers>;

/** The service's event types → their handlers. */
function svcEventHandlers(
  orders: OrderEvents,
  catalog: JobHandler,
): Record<SvcEventType, JobHandler> {
  return {
    ORDER: orders.service,
    ORDERSPLIT: orders.service,
    LOGISTIC: orders.service,
    PRODUCT: catalog,
    VARIANT: catalog,
    STOCK: catalog,
  };
}

/** Shopify's topics → their handlers. */
function shopifyTopicHandlers(orders: OrderEvents): Record<ShopifyTopic, JobHandler> {
  return {
    "orders/create": orders.received,
    "orders/paid": orders.received,
    "orders/updated": orders.updated,
    "orders/cancelled": orders.cancelled,
    "products/update": productUpdated,
    "products/delete": productDeleted,
    "app/uninstalled": appUninstalledJob,
    "app/scopes_update": appScopesUpdateJob,
    "customers/data_request": customersDataRequestJob,
    "customers/redact": customersRedactJob,
    "shop/redact": shopRedactJob,
  };
}

/** Every event's handler by job kind (`svc:ORDER`, `shopify:orders/paid`, ...). */
export function eventHandlers(getDeps: DepsFactory): Record<string, JobHandler> {
  const byKind = (source: "svc" | "shopify", table: Record<string, JobHandler>) =>
    Object.fromEntries(Object.entries(table).map(([t, h]) => [jobKindFor(source, t), h]));
  const orders = orderEventHandlers(getDeps);
  return {
    ...byKind("svc", svcEventHandlers(orders, catalogEvent(getDeps))),
    ...byKind("shopify", shopifyTopicHandlers(orders)),
  };
}
