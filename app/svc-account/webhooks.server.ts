/**
 * The service's webhook subscription of a shop's account, kept alive and shared:
 *
 * - The service keeps ONE webhook configuration per service account. Shops connected to the
 *   same service account (same base URL and `openId`) therefore share one secret and one
 *   callback address; registering reuses a connected sibling's secret, and the intake routes
 *   each event to the right shop (app/webhooks/svc-route.server.ts).
 * - Past 50% failed deliveries the service pauses until webhook/set is called again: the
 *   subscription is registered again on a schedule and after a run of delivery gaps.
 * - Releasing an account (uninstall, disconnect) cancels the webhooks and logs out, best effort,
 *   unless another shop still uses the service account: then both are kept for it.
 */
import type { Prisma, PrismaClient, SvcAccount } from "@prisma/client";
import { config } from "../config.server";
import { decryptSecret } from "../crypto.server";
import { enqueue } from "../jobs/enqueue.server";
import type { Db } from "../db/types";
import { logger } from "../logger.server";
import { svcClientForAccount, type SvcClient } from "../svc/client.server";
import { SvcWebhookExistsError } from "../svc/errors";
import { everySection } from "../svc/events";
import { NO_TOKENS_OR_WEBHOOK } from "../svc/tokens.server";
import {
  hashWebhookSecret,
  newWebhookSecret,
  webhookSecretColumns,
} from "../svc/webhook-secret.server";
import { flagOrphans } from "./follow.server";
import { REREGISTER_EVERY_MS, SVC_ACCOUNT_JOB } from "./kinds";

export interface SvcAccountDeps {
  /** A client bound to the stored account (default: svcClientForAccount). */
  clientFor?: (accountId: string) => Promise<SvcClient>;
}

function defaultClient(db: PrismaClient) {
  // A click or a job must not wait 20 s for another process's token request: fail fast.
  return (accountId: string) =>
    svcClientForAccount(accountId, {
      prisma: db,
      timeoutMs: 10_000,
      tokens: { waitForOtherMs: 0 },
    });
}

/** The callback address of the service's webhooks: the secret is the only credential. */
export function svcWebhookUrl(secret: string): string {
  return `${config.SHOPIFY_APP_URL.replace(/\/$/, "")}/webhooks/svc/${secret}`;
}

/** Any credential left: an API key, or a token. */
export const CONNECTED: Prisma.SvcAccountWhereInput = {
  OR: [
    { apiKeyEnc: { not: null } },
    { accessTokenEnc: { not: null } },
    { refreshTokenEnc: { not: null } },
  ],
};

/** Other shops' connected accounts on the same service account, last registered first. */
export async function siblingsOf(
  db: Db,
  account: Pick<SvcAccount, "id" | "baseUrl" | "openId">,
): Promise<SvcAccount[]> {
  if (!account.openId) return [];
  return db.svcAccount.findMany({
    where: {
      id: { not: account.id },
      baseUrl: account.baseUrl,
      openId: account.openId,
      shopDomain: { not: null },
      ...CONNECTED,
    },
    orderBy: [{ webhookRegisteredAt: { sort: "desc", nulls: "last" } }, { id: "asc" }],
  });
}

/** The account's webhook secret in clear, or null (none, or unreadable with the app's key). */
export function webhookSecretOf(account: Pick<SvcAccount, "webhookSecretEnc">): string | null {
  if (!account.webhookSecretEnc) return null;
  try {
    return decryptSecret(account.webhookSecretEnc);
  } catch {
    return null;
  }
}

/**
 * Settles the secret of the account's group (itself and its siblings): a sibling's when one has
 * it, else its own, else a new one; every row of the group then holds it. Serialised per
 * service account, so two shops registering at once settle on the same secret.
 */
async function settleSecret(db: PrismaClient, accountId: string) {
  return db.$transaction(async (tx) => {
    const row = await tx.svcAccount.findUniqueOrThrow({ where: { id: accountId } });
    if (row.openId) {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`svc-webhooks|${row.baseUrl}|${row.openId}`}))`;
    }
    const siblings = await siblingsOf(tx, row);
    const secret =
      siblings.map(webhookSecretOf).find((s) => s !== null) ??
      webhookSecretOf(row) ??
      newWebhookSecret();
    const hash = hashWebhookSecret(secret);
    const stale = [row, ...siblings].filter((a) => a.webhookSecretHash !== hash).map((a) => a.id);
    if (stale.length > 0) {
      // One encrypted copy per row (each with its own IV); the same hash for all.
      for (const id of stale) {
        await tx.svcAccount.update({ where: { id }, data: webhookSecretColumns(secret) });
      }
    }
    return { secret, hash, shared: siblings.length };
  });
}

/**
 * webhook/set ENABLE for ORDER, LOGISTIC, PRODUCT and STOCK with the group's callback address. The
 * call also lifts a pause of the deliveries. Throws the service's error (1606000, "setting
 * exists", counts as done).
 */
export async function registerAccountWebhooks(
  db: PrismaClient,
  accountId: string,
  deps: SvcAccountDeps = {},
): Promise<{ shared: number }> {
  const { secret, hash, shared } = await settleSecret(db, accountId);
  const client = await (deps.clientFor ?? defaultClient(db))(accountId);
  const section = { type: "ENABLE" as const, callbackUrls: [svcWebhookUrl(secret)] };
  try {
    await client.webhooks.set(everySection(section));
  } catch (error) {
    if (!(error instanceof SvcWebhookExistsError)) throw error;
  }
  await db.svcAccount.updateMany({
    where: { webhookSecretHash: hash },
    data: { webhookRegisteredAt: new Date(), webhookGaps: 0 },
  });
  return { shared };
}

const CANCEL = { type: "CANCEL" as const, callbackUrls: [] };

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Lets go of an account (the shop uninstalled the app or disconnected): webhook/set CANCEL and
 * logout at the service, best effort, unless a sibling shop still uses the service account;
 * then the tokens, the API key and the webhook secret are forgotten. `detach` also unbinds the
 * row from its shop (disconnect); uninstall keeps it for shop/redact to delete.
 */
export async function releaseAccount(
  db: PrismaClient,
  accountId: string,
  opts: { detach: boolean; deps?: SvcAccountDeps },
): Promise<{ cancelled: boolean; loggedOut: boolean; sharedWith: number }> {
  const out = { cancelled: false, loggedOut: false, sharedWith: 0 };
  const row = await db.svcAccount.findUnique({ where: { id: accountId } });
  if (!row) return out;
  const siblings = await siblingsOf(db, row);
  out.sharedWith = siblings.length;
  const log = logger.child({ svcAccountId: accountId, shop: row.shopDomain ?? undefined });
  const hasCredentials = Boolean(row.apiKeyEnc || row.accessTokenEnc || row.refreshTokenEnc);
  if (siblings.length > 0) {
    log.info(
      { sharedWith: siblings.length },
      "service account still used by other shops: its webhooks and tokens are kept for them",
    );
  } else if (hasCredentials) {
    let client: SvcClient | undefined;
    try {
      client = await (opts.deps?.clientFor ?? defaultClient(db))(accountId);
      await client.webhooks.set(everySection(CANCEL));
      out.cancelled = true;
    } catch (error) {
      log.warn({ err: errorText(error) }, "cancelling the service webhooks failed");
    }
    try {
      if (client) {
        await client.logout();
        out.loggedOut = true;
      }
    } catch (error) {
      log.warn({ err: errorText(error) }, "logout at the service failed");
    }
  }
  await db.svcAccount.update({
    where: { id: accountId },
    data: {
      ...NO_TOKENS_OR_WEBHOOK,
      apiKeyEnc: null,
      webhookGaps: 0,
      ...(opts.detach ? { shopDomain: null } : {}),
    },
  });
  // Its orders still at the service wait for it: the merchant is told what to do.
  if (opts.detach && row.shopDomain) {
    await flagOrphans(db, { shopDomain: row.shopDomain, svcAccountId: accountId });
  }
  log.info(out, "service account released");
  return out;
}

/**
 * Why the account's webhooks are not registered, in the merchant's words, when a registration
 * was tried and failed (the job of a connect keeps trying by itself); null otherwise.
 */
export async function webhookProblem(
  db: Db,
  account: Pick<SvcAccount, "id" | "webhookRegisteredAt">,
): Promise<string | null> {
  if (account.webhookRegisteredAt) return null;
  const job = await db.job.findFirst({
    where: {
      kind: SVC_ACCOUNT_JOB.registerWebhooks,
      payload: { path: ["accountId"], equals: account.id },
      state: { in: ["available", "running", "dead"] },
      lastError: { not: null },
    },
    orderBy: { id: "desc" },
    select: { state: true },
  });
  if (!job) return null;
  const what =
    "The service did not accept the registration of its webhooks, so it does not tell the app " +
    "about orders and tracking (the app still checks them, more slowly).";
  return job.state === "dead"
    ? `${what} Press Register again to try once more.`
    : `${what} The app tries again by itself; you can also press Register again.`;
}

/**
 * The schedule's fan-out: one registration job per service account that the app registered
 * (a group of sibling shops counts once), in this time slot.
 */
export async function enqueueReregistrations(db: Db, nowMs: number): Promise<number> {
  const rows = await db.svcAccount.findMany({
    where: { shopDomain: { not: null }, webhookRegisteredAt: { not: null }, ...CONNECTED },
    select: { id: true, baseUrl: true, openId: true, shopDomain: true },
    orderBy: { id: "asc" },
  });
  const groups = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    const key = r.openId ? `${r.baseUrl}|${r.openId}` : r.id;
    if (!groups.has(key)) groups.set(key, r);
  }
  const slot = Math.floor(nowMs / REREGISTER_EVERY_MS);
  for (const r of groups.values()) {
    await enqueue(db, {
      kind: SVC_ACCOUNT_JOB.registerWebhooks,
      payload: { accountId: r.id, reason: "schedule" },
      idempotencyKey: `svc-webhooks:schedule:${r.id}:${slot}`,
      shopDomain: r.shopDomain ?? undefined,
      maxAttempts: 5,
    });
  }
  return groups.size;
}
