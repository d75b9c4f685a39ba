/**
 * The service account reads that every job and every service webhook make, through this process's
 * row caches (app/db/row-cache.server.ts): kept while the row change feed is up, dropped when the
 * account changes anywhere, read from the database otherwise. Not for money: a payment run reads
 * the known balance from the database itself.
 */
import type { PrismaClient, SvcAccount } from "@prisma/client";
import { rowCache } from "../db/row-cache.server";
import { hashWebhookSecret } from "./webhook-secret.server";

type Reader = Pick<PrismaClient, "svcAccount">;

const byId = rowCache<SvcAccount | null>({ table: "SvcAccount", byRowKey: true });
const idByShop = rowCache<string | null>({ table: "SvcAccount", byRowKey: false });
const bySecret = rowCache<WebhookAccount[]>({ table: "SvcAccount", byRowKey: false });

/** An account by id (null when there is none). */
export function accountById(db: Reader, id: string): Promise<SvcAccount | null> {
  return byId.get(id, () => db.svcAccount.findUnique({ where: { id } }));
}

/** The id of the account connected to a shop (null when none is). */
export function accountIdOfShop(db: Reader, shopDomain: string): Promise<string | null> {
  return idByShop.get(shopDomain, async () => {
    const row = await db.svcAccount.findUnique({ where: { shopDomain }, select: { id: true } });
    return row?.id ?? null;
  });
}

export interface WebhookAccount {
  id: string;
  shopDomain: string;
  openId: string | null;
}

/**
 * The accounts attached to a shop whose webhook address holds this secret (shops connected to
 * one service account share it), by id.
 */
export function accountsByWebhookSecret(db: Reader, secret: string): Promise<WebhookAccount[]> {
  const hash = hashWebhookSecret(secret);
  return bySecret.get(hash, async () => {
    const rows = await db.svcAccount.findMany({
      where: { webhookSecretHash: hash, shopDomain: { not: null } },
      select: { id: true, shopDomain: true, openId: true },
      orderBy: { id: "asc" },
    });
    // Only accounts attached to a shop were asked for (a detached one keeps its hash).
    return rows as WebhookAccount[];
  });
}
