/**
 * The shop's lifecycle and privacy jobs: app/uninstalled (the service account let go),
 * app/scopes_update, and Shopify's three compliance topics (customers/redact, shop/redact,
 * customers/data_request). Each job reads its stored webhook event (app/events/store.server.ts).
 */
import { Prisma } from "@prisma/client";
import { z } from "zod";
import { PermanentJobError, type JobHandler } from "../jobs/handler";
import type { Db } from "../db/types";
import { releaseAccount } from "../svc-account/webhooks.server";
import { payloadId } from "../events/ids.server";
import { loadEvent } from "../events/store.server";
import { archiveBucket } from "../archive/files.server";
import { eraseOrderFiles, eraseShopObjects, eraseShopRows } from "./redact.server";

const REDACTED = { redacted: true } as const;

/** An id as the webhook intake stores it: a safe integer, or the exact digits of a larger one. */
const idValue = z.union([z.number(), z.string()]).transform(payloadId).pipe(z.string());
const customerRef = z.object({ id: idValue }).passthrough();

/** customers/redact names its orders in `orders_to_redact`. */
const customersRedact = z.object({
  customer: customerRef,
  orders_to_redact: z.array(idValue).default([]),
});

/** customers/data_request names them in `orders_requested` (and has no `orders_to_redact`). */
const customersDataRequest = z.object({
  customer: customerRef,
  orders_requested: z.array(idValue).default([]),
  data_request: z.object({ id: idValue }).passthrough().nullish(),
});

/** Events of a shop that carry this customer's data: by customer id, or by one of the orders. */
async function eventsAboutCustomer(
  db: Db,
  shopDomain: string,
  customerId: string,
  orderIds: string[],
  excludeId: bigint,
) {
  return db.$queryRaw<{ id: bigint; topic: string; orderId: string | null }[]>`
    SELECT "id", "topic", "payload"->>'id' AS "orderId" FROM "WebhookEvent"
    WHERE "shopDomain" = ${shopDomain} AND "id" <> ${excludeId}
      AND ("payload"->'customer'->>'id' = ${customerId}
           OR ("topic" LIKE 'orders/%' AND "payload"->>'id' = ANY(${orderIds}::text[])))`;
}

/**
 * An uninstalled shop's service account: webhooks cancelled and logout at the service (best
 * effort; not while another shop still uses that service account), then its tokens, key and
 * webhook secret are forgotten. The row stays for shop/redact to delete.
 */
export const appUninstalledJob: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  const shop = await ctx.prisma.shop.findUnique({
    where: { domain: event.shopDomain },
    select: { uninstalledAt: true },
  });
  // Installed again since (the install clears uninstalledAt): the account is the new one's.
  if (shop && !shop.uninstalledAt) return { skipped: "installed again" };
  const accounts = await ctx.prisma.svcAccount.findMany({
    where: { shopDomain: event.shopDomain },
    select: { id: true },
  });
  const released = [];
  for (const a of accounts) {
    released.push(await releaseAccount(ctx.prisma, a.id, { detach: false }));
  }
  return { accountsDisconnected: accounts.length, released };
};

export const appScopesUpdateJob: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  const current = z.object({ current: z.array(z.string()) }).safeParse(event.payload);
  if (!current.success) throw new PermanentJobError("scopes_update payload without `current`");
  await ctx.commit((tx) =>
    tx.shop.updateMany({
      where: { domain: event.shopDomain },
      data: { scopes: current.data.current.join(",") },
    }),
  );
};

/** Removes that customer's personal data from everything the app keeps. */
export const customersRedactJob: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  const req = customersRedact.safeParse(event.payload);
  if (!req.success) throw new PermanentJobError("customers/redact payload without customer");
  const { customer, orders_to_redact } = req.data;
  const result = {
    customerId: customer.id,
    eventsRedacted: 0,
    ordersRedacted: 0,
    filesDeleted: 0,
    copiesDropped: 0,
  };
  await ctx.commit(async (tx) => {
    const found = await eventsAboutCustomer(
      tx,
      event.shopDomain,
      customer.id,
      orders_to_redact,
      event.id,
    );
    if (found.length > 0) {
      await tx.webhookEvent.updateMany({
        where: { id: { in: found.map((e) => e.id) } },
        data: { payload: REDACTED },
      });
    }
    // The request itself names the customer by email and phone: keep only the ids.
    await tx.webhookEvent.update({
      where: { id: event.id },
      data: { payload: { customer: { id: customer.id }, orders_to_redact } },
    });
    result.eventsRedacted = found.length;
    // The order rows keep the customer id, name and email (for the merchant's search), the
    // merchant's address corrections and the fingerprint of the address shipped to; the
    // orders' kept files (photos of the parcel and its label) and their copies to make go.
    const orders = await tx.shopOrder.updateManyAndReturn({
      where: {
        shopDomain: event.shopDomain,
        OR: [{ customerId: customer.id }, { shopifyOrderId: { in: orders_to_redact } }],
      },
      data: {
        customerId: null,
        customerName: null,
        customerEmail: null,
        recipient: Prisma.DbNull,
        shippedTo: null,
      },
      select: { id: true },
    });
    result.ordersRedacted = orders.length;
    const erased = await eraseOrderFiles(
      tx,
      event.shopDomain,
      orders.map((o) => o.id),
      archiveBucket(),
    );
    result.filesDeleted = erased.files;
    result.copiesDropped = erased.tasks;
  }, result);
  return result;
};

/** Deletes everything the app holds about the shop (48 hours after uninstall): redact.server.ts. */
export const shopRedactJob: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  const shopDomain = event?.shopDomain ?? ctx.job.shopDomain;
  if (!shopDomain) throw new PermanentJobError("shop/redact without a shop");
  const counts: Record<string, number> = {
    objects: await eraseShopObjects(ctx.prisma, shopDomain, archiveBucket()),
  };
  // The counts are filled in before the job's completion records them with it.
  await ctx.commit(async (tx) => {
    Object.assign(counts, await eraseShopRows(tx, shopDomain, ctx.job.id));
  }, counts as Prisma.InputJsonValue);
  return counts;
};

/**
 * Records the request and what the app holds about the customer and the orders Shopify lists
 * in `orders_requested` (the merchant answers it): the job's result is that record.
 */
export const customersDataRequestJob: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  const req = customersDataRequest.safeParse(event.payload);
  if (!req.success) throw new PermanentJobError("customers/data_request without customer");
  const { customer, orders_requested, data_request } = req.data;
  const found = await eventsAboutCustomer(
    ctx.prisma,
    event.shopDomain,
    customer.id,
    orders_requested,
    event.id,
  );
  const orders = await ctx.prisma.shopOrder.findMany({
    where: {
      shopDomain: event.shopDomain,
      OR: [{ customerId: customer.id }, { shopifyOrderId: { in: orders_requested } }],
    },
    select: { shopifyOrderId: true, shopifyOrderName: true, state: true, createdAt: true },
    orderBy: { shopifyOrderId: "asc" },
  });
  const heldOrderIds = new Set([
    ...orders.map((o) => o.shopifyOrderId),
    ...found.flatMap((e) => (e.orderId ? [e.orderId] : [])),
  ]);
  return {
    customerId: customer.id,
    dataRequestId: data_request?.id ?? null,
    ordersRequested: orders_requested,
    ordersRequestedNotHeld: orders_requested.filter((id) => !heldOrderIds.has(id)),
    held: {
      webhookEvents: found.length,
      topics: [...new Set(found.map((e) => e.topic))].sort(),
      orderIds: [...new Set(found.map((e) => e.orderId).filter(Boolean))].sort(),
      orders: orders.map((o) => ({
        shopifyOrderId: o.shopifyOrderId,
        name: o.shopifyOrderName,
        state: o.state,
        receivedAt: o.createdAt.toISOString(),
      })),
    },
  };
};
