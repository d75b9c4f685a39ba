/**
 * The shop record: one row per shop that installed the app.
 */
import type { PrismaClient } from "@prisma/client";
import type { Db } from "./jobs/queue.server";

/** Records an installation (or a reinstall: the uninstall mark is cleared, settings kept). */
export async function recordInstall(db: PrismaClient, domain: string, scopes?: string) {
  return db.shop.upsert({
    where: { domain },
    create: { domain, scopes },
    update: { uninstalledAt: null, installedAt: new Date(), scopes },
  });
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
