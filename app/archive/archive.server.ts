/**
 * Proof of delivery and warehouse photos, archived: the service hands out addresses that expire
 * and says the caller archives the files (part 3 §4.9), so the app copies each file once into
 * its own storage (files.server.ts) and the order page shows the copy.
 *
 * - A copy to make is an ArchiveTask (unique per order, purpose and address); `archive.run`
 *   works the due ones: downloaded with size and type limits, kept, done. A failure that may
 *   pass (a 5xx, a time-out) is tried again after 1 min, 5 min, 30 min, 2 h, 12 h; a refusal that
 *   cannot (a 4xx, too large, not an image) is recorded and given up, as is the sixth failure.
 * - Tasks are made when the tracking sees an order delivered (fulfilment/track/ asks for the
 *   proof then), and by `archive.scan` every 30 minutes: delivered orders of the last 30 days
 *   without proof yet, and paid orders of the last 14 days without warehouse photos, asked
 *   from the service 50 at a time per account.
 */
import type { PrismaClient } from "@prisma/client";
import type { SvcClient } from "../svc/client.server";
import { enqueue } from "../jobs/enqueue.server";
import type { Db } from "../db/types";
import type { Bucket } from "./bucket.server";
import { FileRefusedError, saveFile, type FilePurpose } from "./files.server";
import { downloadFile } from "./download.server";
import type { Resolve } from "./public-address.server";

export const ARCHIVE_JOB = {
  run: "archive.run",
  scan: "archive.scan",
  pruneUploads: "archive.pruneUploads",
} as const;
export const ARCHIVE_MAX_BYTES = 20 * 1024 * 1024;
/** The most files of one purpose the app copies for one order (a service order names a few). */
export const ARCHIVE_MAX_FILES = 20;
const BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 12 * 3600_000];
export const ARCHIVE_MAX_ATTEMPTS = BACKOFF_MS.length + 1;
const RUN_BATCH = 20;
const SCAN_BATCH = 50;
const DAY_MS = 24 * 3600_000;

export type ArchivePurpose = Exclude<FilePurpose, "dispute_upload">;

/** Records the copies to make (once per address) and wakes the archive job. */
export async function queueArchive(
  db: Db,
  t: { shopDomain: string; orderId: string; purpose: ArchivePurpose; urls: string[] },
): Promise<number> {
  const named = [...new Set(t.urls.filter((u) => /^https?:\/\//i.test(u) && u.length <= 2000))];
  if (named.length === 0) return 0;
  // At most ARCHIVE_MAX_FILES copies per order and purpose, whatever the service names.
  const queued = await db.archiveTask.findMany({
    where: { orderId: t.orderId, purpose: t.purpose },
    select: { sourceUrl: true },
  });
  const known = new Set(queued.map((q) => q.sourceUrl));
  const urls = named
    .filter((u) => !known.has(u))
    .slice(0, Math.max(0, ARCHIVE_MAX_FILES - known.size));
  if (urls.length === 0) return 0;
  const made = await db.archiveTask.createMany({
    data: urls.map((sourceUrl) => ({
      shopDomain: t.shopDomain,
      orderId: t.orderId,
      purpose: t.purpose,
      sourceUrl,
    })),
    skipDuplicates: true,
  });
  if (made.count > 0) {
    await enqueue(db, {
      kind: ARCHIVE_JOB.run,
      payload: {},
      idempotencyKey: `archive:run:${Math.floor(Date.now() / 10_000)}`,
      maxAttempts: 3,
    });
  }
  return made.count;
}

export interface RunOptions {
  now?: number;
  /** The service's host of an account (its files may sit there in a sandbox or a test). */
  trustedHostOf(shopDomain: string): Promise<string | undefined>;
  fetchImpl?: typeof fetch;
  /** How the files' host names are resolved (tests; default the system resolver). */
  resolve?: Resolve;
  signal?: AbortSignal;
  /** Where the copies go (default: ARCHIVE_S3_URL's bucket, or PostgreSQL). */
  bucket?: Bucket | null;
}

/** Works the due copies (at most RUN_BATCH). Returns what happened to each. */
export async function runArchive(db: PrismaClient, opts: RunOptions) {
  const now = opts.now ?? Date.now();
  const due = await db.archiveTask.findMany({
    where: { doneAt: null, nextAt: { lte: new Date(now) } },
    orderBy: { nextAt: "asc" },
    take: RUN_BATCH,
  });
  const out = { kept: 0, retrying: 0, gaveUp: 0, more: due.length === RUN_BATCH };
  const hosts = new Map<string, string | undefined>();
  for (const t of due) {
    opts.signal?.throwIfAborted();
    if (!hosts.has(t.shopDomain)) hosts.set(t.shopDomain, await opts.trustedHostOf(t.shopDomain));
    const attempts = t.attempts + 1;
    try {
      const file = await downloadFile(t.sourceUrl, {
        maxBytes: ARCHIVE_MAX_BYTES,
        trustedHost: hosts.get(t.shopDomain),
        fetchImpl: opts.fetchImpl,
        resolve: opts.resolve,
        timeoutMs: 60_000,
      });
      await saveFile(
        db,
        {
          shopDomain: t.shopDomain,
          purpose: t.purpose as ArchivePurpose,
          orderId: t.orderId,
          sourceUrl: t.sourceUrl,
          name: `${t.purpose}.${file.ext}`,
          bytes: file.bytes,
          type: file.type,
        },
        opts.bucket,
      );
      await db.archiveTask.update({
        where: { id: t.id },
        data: { attempts, doneAt: new Date(), lastError: null },
      });
      out.kept++;
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
      const giveUp = error instanceof FileRefusedError || attempts >= ARCHIVE_MAX_ATTEMPTS;
      await db.archiveTask.update({
        where: { id: t.id },
        data: {
          attempts,
          lastError: message,
          ...(giveUp
            ? { doneAt: new Date() }
            : { nextAt: new Date(now + BACKOFF_MS[attempts - 1]!) }),
        },
      });
      if (giveUp) out.gaveUp++;
      else out.retrying++;
    }
  }
  return out;
}

/** Service order ids of shop orders, by the shop order. */
async function svcIdsOf(db: PrismaClient, orderIds: string[]) {
  const rows = await db.shopOrder.findMany({
    where: { id: { in: orderIds } },
    select: { id: true, svcOrderId: true, shipments: { select: { svcOrderId: true } } },
  });
  return new Map(
    rows.map((r) => [
      r.id,
      [...new Set([r.svcOrderId, ...r.shipments.map((s) => s.svcOrderId)])].filter(
        (x): x is string => Boolean(x),
      ),
    ]),
  );
}

/**
 * Asks the service for one purpose's files of some shop orders (of one account) and queues
 * their copies. Returns how many copies were queued.
 */
export async function askAndQueue(
  db: PrismaClient,
  client: SvcClient,
  shopDomain: string,
  purpose: ArchivePurpose,
  orderIds: string[],
): Promise<number> {
  const ids = await svcIdsOf(db, orderIds);
  const byService = new Map<string, string>();
  for (const [orderId, svcIds] of ids) for (const s of svcIds) byService.set(s, orderId);
  const wanted = [...byService.keys()];
  let queued = 0;
  for (let i = 0; i < wanted.length; i += SCAN_BATCH) {
    const batch = wanted.slice(i, i + SCAN_BATCH);
    const found =
      purpose === "proof_of_delivery"
        ? (await client.orders.getProofOfDelivery(batch)).map((p) => ({
            orderId: p.orderId,
            urls: p.proofOfDeliveryList ?? [],
          }))
        : (await client.warehouses.orderPhotos(batch)).map((p) => ({
            orderId: p.orderId,
            urls: (p.pictureJson ?? []).map((x) => x.url ?? "").filter(Boolean),
          }));
    for (const f of found) {
      const orderId = f.orderId ? byService.get(f.orderId) : undefined;
      if (!orderId) continue;
      queued += await queueArchive(db, { shopDomain, orderId, purpose, urls: f.urls });
    }
  }
  return queued;
}

/**
 * The orders of an account still without their files: delivered in the last 30 days without
 * proof, paid in the last 14 days without warehouse photos (at most 500 of each a pass).
 */
export async function ordersMissing(
  db: PrismaClient,
  accountId: string,
  purpose: ArchivePurpose,
  now = Date.now(),
) {
  const since = new Date(now - (purpose === "proof_of_delivery" ? 30 : 14) * DAY_MS);
  const rows = await db.shopOrder.findMany({
    where: {
      svcAccountId: accountId,
      svcOrderId: { not: null },
      ...(purpose === "proof_of_delivery"
        ? { deliveredAt: { gte: since } }
        : { paidAt: { gte: since }, state: { notIn: ["CANCELLED"] } }),
    },
    select: { id: true },
    orderBy: { updatedAt: "desc" },
    take: 2000,
  });
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  // Kept, or being copied: nothing to ask. Only failed copies (an expired link, say): asked
  // again, since the service hands out a fresh address.
  const [kept, copying] = await Promise.all([
    db.storedFile.findMany({
      where: { orderId: { in: ids }, purpose },
      select: { orderId: true },
      distinct: ["orderId"],
    }),
    db.archiveTask.findMany({
      where: { orderId: { in: ids }, purpose, doneAt: null },
      select: { orderId: true },
      distinct: ["orderId"],
    }),
  ]);
  const done = new Set([...kept, ...copying].map((h) => h.orderId));
  return rows
    .map((r) => r.id)
    .filter((id) => !done.has(id))
    .slice(0, 500);
}

/** The kept files of an order, by purpose, and what is still being copied or failed. */
export async function orderFiles(db: PrismaClient, shop: string, orderId: string) {
  const [files, tasks] = await Promise.all([
    db.storedFile.findMany({
      where: {
        shopDomain: shop,
        orderId,
        purpose: { in: ["proof_of_delivery", "warehouse_photo"] },
      },
      select: { id: true, purpose: true, contentType: true, size: true, createdAt: true },
      orderBy: { createdAt: "asc" },
    }),
    db.archiveTask.findMany({
      where: { shopDomain: shop, orderId },
      select: { doneAt: true, lastError: true },
    }),
  ]);
  return {
    files,
    copying: tasks.filter((t) => !t.doneAt).length,
    failed: tasks.filter((t) => t.doneAt && t.lastError).map((t) => t.lastError!),
  };
}
