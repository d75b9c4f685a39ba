/**
 * Everything the app holds about a shop, deleted (shop/redact, 48 hours after uninstall): every
 * row keyed by the shop, each table named here, and the rows that hang off them (an order's
 * lines, shipments, timeline and replaced service orders, a dispute's messages, an account's
 * rate buckets and payment batches); the stored files' objects in the bucket first.
 * test/shops/shop-redact.test.ts reads the Prisma schema and fails when a table keyed by the
 * shop is left out. For customers/redact, the files kept for the customer's orders
 * (test/shops/customer-redact.test.ts).
 */
import type { Prisma } from "@prisma/client";
import type { Bucket } from "../archive/bucket.server";
import { eraseObjects } from "../archive/files.server";

type FilesDb = Pick<Prisma.TransactionClient, "storedFile">;

/** Deletes the shop's objects in the bucket (its keys start with the shop: none is shared). */
export function eraseShopObjects(
  db: FilesDb,
  shopDomain: string,
  bucket: Bucket | null,
): Promise<number> {
  return eraseObjects(db, { shopDomain }, bucket);
}

/** Deletes every row about the shop, in one transaction; the counts by table. */
export async function eraseShopRows(
  tx: Prisma.TransactionClient,
  shopDomain: string,
  keepJobId: bigint,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const where = { shopDomain };
  const accountIds = (await tx.svcAccount.findMany({ where, select: { id: true } })).map(
    (a) => a.id,
  );
  counts.sessions = (await tx.session.deleteMany({ where: { shop: shopDomain } })).count;
  counts.authStates = (await tx.authState.deleteMany({ where })).count;
  counts.paymentBatches = (
    await tx.paymentBatch.deleteMany({ where: { svcAccountId: { in: accountIds } } })
  ).count;
  // Lines, shipments, timeline entries and replaced service orders go with their orders;
  // messages with their disputes; rate buckets with their accounts (cascade).
  counts.orders = (await tx.shopOrder.deleteMany({ where })).count;
  counts.disputes = (await tx.dispute.deleteMany({ where })).count;
  counts.storedFiles = (await tx.storedFile.deleteMany({ where })).count;
  counts.archiveTasks = (await tx.archiveTask.deleteMany({ where })).count;
  counts.connections = (await tx.productConnection.deleteMany({ where })).count;
  counts.backupSuppliers = (await tx.backupSupplier.deleteMany({ where })).count;
  counts.catalogImports = (await tx.catalogImport.deleteMany({ where })).count;
  counts.syncChanges = (await tx.syncChange.deleteMany({ where })).count;
  counts.bulkRuns = (await tx.bulkRun.deleteMany({ where })).count;
  counts.notices = (await tx.notice.deleteMany({ where })).count;
  counts.noticeConditions = (await tx.noticeCondition.deleteMany({ where })).count;
  counts.noticeDigests = (await tx.noticeDigest.deleteMany({ where })).count;
  counts.svcAccounts = (await tx.svcAccount.deleteMany({ where })).count;
  counts.events = (await tx.webhookEvent.deleteMany({ where })).count;
  counts.jobs = (await tx.job.deleteMany({ where: { shopDomain, id: { not: keepJobId } } })).count;
  counts.shops = (await tx.shop.deleteMany({ where: { domain: shopDomain } })).count;
  return counts;
}

/**
 * The files kept for some orders (proof of delivery and warehouse photos show the parcel and
 * its label; dispute uploads), with their copies to make: the objects in the bucket first (one
 * another order's file still names is kept), then the rows. For customers/redact.
 */
export async function eraseOrderFiles(
  db: Pick<Prisma.TransactionClient, "storedFile" | "archiveTask">,
  shopDomain: string,
  orderIds: string[],
  bucket: Bucket | null,
): Promise<{ files: number; tasks: number; objects: number }> {
  if (orderIds.length === 0) return { files: 0, tasks: 0, objects: 0 };
  const mine = { shopDomain, orderId: { in: orderIds } };
  const objects = await eraseObjects(db, mine, bucket);
  const files = (await db.storedFile.deleteMany({ where: mine })).count;
  const tasks = (await db.archiveTask.deleteMany({ where: mine })).count;
  return { files, tasks, objects };
}
