/**
 * Connections made in the service's console (issue 16): the app reads the account's connection
 * list and keeps its own rows in step, so that orders for those variants are placed instead of
 * held for want of a match, and the held ones go on at once.
 *
 * The list is paged (100 a page, the contract's maximum); a connection whose platform ids are
 * not Shopify's numeric ids is skipped and counted. A row the app has for the same variant is
 * updated when the console points it at another catalog variant (the console is the merchant's
 * latest word). Rows are never deleted from here: a page read while the console changes could
 * miss a connection that still exists; disconnecting stays the Products page's job.
 */
import type { PrismaClient } from "@prisma/client";
import { recheckHeld } from "../orders/recheck.server";
import { enqueue, startForShop } from "../jobs/enqueue.server";
import type { JobHandler, RecurringJob } from "../jobs/handler";
import { type SvcClient, svcClientForAccount } from "../svc/index.server";

export const IMPORT_CONNECTIONS_JOB = {
  all: "connections.importAll",
  account: "connections.import",
} as const;

/** The scheduled pass; the Products page's button and connecting an account start one at once. */
const IMPORT_EVERY_MS = 6 * 3600_000;
const PAGE_SIZE = 100;
/** A bound on pages per run (100,000 connections): a list that never ends is not read forever. */
const MAX_PAGES = 1000;

export interface ImportResult {
  seen: number;
  created: number;
  updated: number;
  skipped: number;
  /** Held orders sent to be placed again (their lines may match now). */
  rechecked: number;
}

export async function importConnections(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  signal?: AbortSignal,
): Promise<ImportResult> {
  const out: ImportResult = { seen: 0, created: 0, updated: 0, skipped: 0, rechecked: 0 };
  for (let page = 1; page <= MAX_PAGES; page++) {
    if (signal?.aborted) throw new Error("stopped");
    const res = await client.connections.list({ page, pageSize: PAGE_SIZE });
    const rows = res.items.flatMap((c) => {
      out.seen++;
      const product = c.platformProductId ?? "";
      const variant = c.platformVariantId ?? "";
      const vid = c.svcVariantId ?? "";
      if (!/^\d{1,20}$/.test(product) || !/^\d{1,20}$/.test(variant) || !vid) {
        out.skipped++;
        return [];
      }
      return [{ variant, product, vid, svcProductId: c.svcProductId ?? null }];
    });
    // The app's rows for this page's variants, in one read.
    const existing = new Map(
      (
        await db.productConnection.findMany({
          where: { shopDomain: shop, shopifyVariantId: { in: rows.map((r) => r.variant) } },
          select: {
            shopifyVariantId: true,
            svcVid: true,
            svcProductId: true,
            shopifyProductId: true,
          },
        })
      ).map((e) => [e.shopifyVariantId, e]),
    );
    const fresh = rows.filter((r) => !existing.has(r.variant));
    if (fresh.length > 0) {
      const made = await db.productConnection.createMany({
        data: fresh.map((r) => ({
          shopDomain: shop,
          shopifyVariantId: r.variant,
          shopifyProductId: r.product,
          svcProductId: r.svcProductId,
          svcVid: r.vid,
        })),
        skipDuplicates: true,
      });
      out.created += made.count;
    }
    for (const r of rows) {
      const e = existing.get(r.variant);
      if (
        !e ||
        (e.svcVid === r.vid &&
          e.shopifyProductId === r.product &&
          (r.svcProductId === null || e.svcProductId === r.svcProductId))
      )
        continue;
      await db.productConnection.update({
        where: { shopDomain_shopifyVariantId: { shopDomain: shop, shopifyVariantId: r.variant } },
        data: { shopifyProductId: r.product, svcProductId: r.svcProductId, svcVid: r.vid },
      });
      out.updated++;
    }
    const total = res.total ?? 0;
    if (res.items.length < PAGE_SIZE || page * PAGE_SIZE >= total) break;
  }
  if (out.created + out.updated > 0) {
    out.rechecked = await recheckHeld(db, shop, ["unconnected_lines"], `imported:${Date.now()}`);
  }
  return out;
}

/** Starts an import for the shop unless one is waiting or running; returns the job's id. */
export async function startImport(db: PrismaClient, shop: string, accountId: string) {
  return startForShop(db, {
    kind: IMPORT_CONNECTIONS_JOB.account,
    payload: { accountId },
    shopDomain: shop,
    maxAttempts: 3,
  });
}

export function importConnectionsHandlers(): Record<string, JobHandler> {
  return {
    /** Every few hours: one import per connected account (each inside its own limits). */
    [IMPORT_CONNECTIONS_JOB.all]: async (ctx) => {
      const accounts = await ctx.prisma.svcAccount.findMany({
        where: { shopDomain: { not: null } },
        select: { id: true, shopDomain: true },
      });
      const slot = Math.floor(Date.now() / IMPORT_EVERY_MS);
      await ctx.commit(async (tx) => {
        for (const a of accounts) {
          await enqueue(tx, {
            kind: IMPORT_CONNECTIONS_JOB.account,
            payload: { accountId: a.id },
            idempotencyKey: `connections-import:${a.id}:${slot}`,
            concurrencyKey: `${IMPORT_CONNECTIONS_JOB.account}:${a.shopDomain}`,
            shopDomain: a.shopDomain ?? undefined,
            maxAttempts: 3,
          });
        }
      });
      return { accounts: accounts.length };
    },

    [IMPORT_CONNECTIONS_JOB.account]: async (ctx) => {
      const payload = ctx.payload as { accountId?: unknown } | null;
      const accountId = typeof payload?.accountId === "string" ? payload.accountId : "";
      const account = await ctx.prisma.svcAccount.findUnique({ where: { id: accountId } });
      if (!account?.shopDomain) return { skipped: "the account is not connected to a shop" };
      const client = await svcClientForAccount(account.id, { prisma: ctx.prisma });
      return { ...(await importConnections(ctx.prisma, client, account.shopDomain, ctx.signal)) };
    },
  };
}

export const importConnectionsRecurringJobs: RecurringJob[] = [
  { kind: IMPORT_CONNECTIONS_JOB.all, everyMs: IMPORT_EVERY_MS },
];
