/**
 * What follows a successful authorization-code exchange (the code receiver,
 * app/routes/svc.auth.callback.tsx), the same as after "Connect with API key": the shop's
 * orders follow their service account, orders held for want of an account go on, connections
 * made in the service's console are read, and the service webhooks are registered at once, so
 * the settings page the merchant comes back to shows them registered. A registration the
 * service refuses or misses is retried by the job the exchange queued, and the settings page
 * says so (webhookProblem) with its Register button.
 */
import type { PrismaClient } from "@prisma/client";
import { startImport } from "./import-connections.server";
import { recheckHeld } from "../orders/recheck.server";
import { logger } from "../logger.server";
import { svcClientForAccount } from "../svc/client.server";
import { errorMessage } from "../jobs/queue.server";
import { followAccount } from "./follow.server";
import { SVC_ACCOUNT_JOB } from "./kinds";
import { registerAccountWebhooks, type SvcAccountDeps } from "./webhooks.server";

export async function afterAuthorization(
  db: PrismaClient,
  input: { shop: string; accountId: string; previousOpenId?: string | null },
  deps: SvcAccountDeps = {},
): Promise<{ webhooksRegistered: boolean }> {
  await followAccount(db, input);
  await recheckHeld(db, input.shop, ["no_account"], `connected:${input.accountId}:${Date.now()}`);
  await startImport(db, input.shop, input.accountId);
  try {
    // The service waits for the receiver's answer: one short try here, the job does the rest.
    const clientFor =
      deps.clientFor ??
      ((id: string) =>
        svcClientForAccount(id, {
          prisma: db,
          timeoutMs: 2_500,
          retry: { maxAttempts: 1 },
          tokens: { waitForOtherMs: 0 },
        }));
    await registerAccountWebhooks(db, input.accountId, { clientFor });
    return { webhooksRegistered: true };
  } catch (error) {
    // The queued registration job retries; until then the settings page says why they are missing.
    await db.$executeRaw`
      UPDATE "Job" SET "lastError" = ${errorMessage(error)}, "updatedAt" = now()
      WHERE "kind" = ${SVC_ACCOUNT_JOB.registerWebhooks} AND "state" = 'available'
        AND "payload"->>'accountId' = ${input.accountId}`;
    logger.warn(
      { shop: input.shop, svcAccountId: input.accountId, err: (error as Error).name },
      "registering the service webhooks after the authorization failed; the job retries",
    );
    return { webhooksRegistered: false };
  }
}
