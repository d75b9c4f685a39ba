/**
 * The shop record: one row per shop that installed the app.
 */
import type { PrismaClient } from "@prisma/client";
import type { Db } from "../db/types";

/**
 * Records an installation (the `afterAuth` hook, after every token exchange): a reinstall
 * clears the uninstall mark (settings kept), a reconnection clears the mark of revoked access
 * (`authProblem`), and the jobs that waited for either run again now.
 */
export async function recordInstall(db: PrismaClient, domain: string, scopes?: string) {
  const shop = await db.shop.upsert({
    where: { domain },
    create: { domain, scopes },
    update: {
      uninstalledAt: null,
      installedAt: new Date(),
      scopes,
      authProblem: null,
      authProblemAt: null,
    },
  });
  await resumeWaitingJobs(db, domain);
  return shop;
}

/**
 * Jobs that wait for the shop to reconnect (they met ShopReauthRequiredError, whose message
 * names the shop) become due now. Returns how many.
 */
export async function resumeWaitingJobs(db: Db, domain: string): Promise<number> {
  return db.$executeRaw`
    UPDATE "Job" SET "runAt" = now(), "updatedAt" = now()
    WHERE "state" = 'available' AND "lastError" LIKE 'ShopReauthRequiredError:%'
      AND ("shopDomain" = ${domain} OR strpos("lastError", ${` for ${domain}:`}) > 0)`;
}

/**
 * Marks a shop uninstalled and removes its sessions (its tokens are dead anyway). Safe to run
 * twice (the first uninstall time is kept) and for a shop the app no longer knows (a no-op).
 */
export async function recordUninstall(tx: Db, domain: string, at = new Date()) {
  const marked = await tx.shop.updateMany({
    where: { domain, uninstalledAt: null },
    data: { uninstalledAt: at },
  });
  const sessions = await tx.session.deleteMany({ where: { shop: domain } });
  return { marked: marked.count, sessionsRemoved: sessions.count };
}
