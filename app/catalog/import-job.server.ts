/**
 * The `catalog.import` job: one catalog product into the shop (import.server.ts), its progress
 * and outcome on its CatalogImport row; a failure the merchant can do nothing about stops it at
 * once, any other tries again.
 */
import type { PrismaClient } from "@prisma/client";
import { enqueue } from "../jobs/enqueue.server";
import type { JobHandler } from "../jobs/handler";
import { PermanentJobError } from "../jobs/handler";
import { SvcNotFoundError, SvcParamError } from "../svc/index.server";
import { ShopUserError } from "../shop/index.server";
import { accountOf } from "../svc-account/account.server";
import { ImportRefusedError, importProduct } from "./import.server";
import { CATALOG_JOB, type GetDeps } from "./job-kinds";

/** An import row not moved for this long is taken for dead (a retry updates it sooner). */
const STALE_IMPORT_MS = 30 * 60_000;

/** Starts an import of a catalog product unless the same one is waiting or running. */
export async function startCatalogImport(
  db: PrismaClient,
  shop: string,
  pid: string,
  /** The product's name as the merchant saw it, shown until the job reads the service's own. */
  title?: string | null,
) {
  // One at a time per product; a row untouched for half an hour (its job died) does not block.
  const current = await db.catalogImport.findFirst({
    where: {
      shopDomain: shop,
      pid,
      status: { in: ["queued", "running"] },
      updatedAt: { gt: new Date(Date.now() - STALE_IMPORT_MS) },
    },
  });
  if (current) return { ...current, started: false };
  return db.$transaction(async (tx) => {
    const shown = title?.trim().slice(0, 255);
    const row = await tx.catalogImport.create({
      data: { shopDomain: shop, pid, ...(shown ? { title: shown } : {}) },
    });
    await enqueue(tx, {
      kind: CATALOG_JOB.import,
      payload: { importId: row.id },
      idempotencyKey: `catalog-import:${row.id}`,
      concurrencyKey: `${CATALOG_JOB.import}:${shop}`,
      shopDomain: shop,
      maxAttempts: 5,
    });
    return { ...row, started: true };
  });
}

/** What the merchant reads of a failed import, and whether trying again can help. */
function importErrorText(error: unknown): { text: string; permanent: boolean } {
  if (error instanceof ImportRefusedError) return { text: error.message, permanent: true };
  if (error instanceof SvcNotFoundError)
    return { text: "The catalog product is gone (removed at the service)", permanent: true };
  if (error instanceof SvcParamError)
    return { text: "The catalog product was not found at the service", permanent: true };
  if (error instanceof ShopUserError)
    return { text: `Shopify refused the product: ${error.message}`, permanent: true };
  return {
    text: "The service or Shopify did not answer; the import tries again by itself",
    permanent: false,
  };
}

export const importJob =
  (getDeps: GetDeps): JobHandler =>
  async (ctx) => {
    const importId = (ctx.payload as { importId?: unknown } | null)?.importId;
    if (typeof importId !== "string") throw new PermanentJobError("Job payload has no importId");
    const row = await ctx.prisma.catalogImport.findUnique({ where: { id: importId } });
    if (!row) return { skipped: "import gone" };
    if (row.status === "done") return { skipped: "already done" };
    const account = await accountOf(ctx.prisma, row.shopDomain);
    const fail = async (message: string) => {
      await ctx.prisma.catalogImport.update({
        where: { id: row.id },
        data: { status: "failed", error: message.slice(0, 500) },
      });
      return { failed: message };
    };
    if (!account) return fail("Connect a service account first");
    await ctx.prisma.catalogImport.update({
      where: { id: row.id },
      data: { status: "running", error: null },
    });
    const deps = await getDeps(ctx);
    try {
      const outcome = await importProduct({
        db: ctx.prisma,
        client: await deps.svcFor(account.id),
        gateway: await deps.shopFor(row.shopDomain),
        shop: row.shopDomain,
        pid: row.pid,
        now: () => deps.clock.now(),
        fxRatesUrl: deps.options?.fxRatesUrl,
        onProgress: async (p) => {
          await ctx.prisma.catalogImport.update({
            where: { id: row.id },
            data: { title: p.title, variants: p.variants },
          });
        },
      });
      await ctx.prisma.catalogImport.update({
        where: { id: row.id },
        data: {
          status: "done",
          shopifyProductId: outcome.shopifyProductId,
          variants: outcome.variants,
          error: null,
        },
      });
      return { ...outcome };
    } catch (error) {
      const last = ctx.job.attempts >= ctx.job.maxAttempts;
      const said = importErrorText(error);
      if (said.permanent || last) return fail(said.text);
      await ctx.prisma.catalogImport.update({
        where: { id: row.id },
        data: { status: "queued", error: `Will try again: ${said.text}`.slice(0, 500) },
      });
      throw error;
    }
  };
