/**
 * The notification emails on a schedule: every minute one job finds the shops with addresses
 * set and gives each a job of its own (one at a time per shop), which records what is new and
 * sends the digest when one is due (app/notify/notices.server.ts).
 */
import { z } from "zod";
import { enqueue } from "../jobs/enqueue.server";
import type { JobHandler, RecurringJob } from "../jobs/handler";
import { configuredMailer, type Mailer } from "./mailer.server";
import { notifyShop, serviceProbe } from "./notices.server";

export const NOTIFY_JOB = { scan: "notify.scan", shop: "notify.shop" } as const;

export function notifyHandlers(
  mailer: () => Mailer | null = configuredMailer,
): Record<string, JobHandler> {
  return {
    [NOTIFY_JOB.scan]: async (ctx) => {
      const shops = await ctx.prisma.$queryRaw<{ domain: string }[]>`
        SELECT "domain" FROM "Shop"
        WHERE "uninstalledAt" IS NULL AND coalesce("settings"->>'notifyEmails', '') <> ''`;
      const slot = Math.floor(Date.now() / 60_000);
      await ctx.commit(async (tx) => {
        for (const s of shops) {
          await enqueue(tx, {
            kind: NOTIFY_JOB.shop,
            payload: { shop: s.domain },
            idempotencyKey: `notify:${s.domain}:${slot}`,
            concurrencyKey: `notify:${s.domain}`,
            shopDomain: s.domain,
            maxAttempts: 2,
          });
        }
      });
      return { shops: shops.length };
    },

    [NOTIFY_JOB.shop]: async (ctx) => {
      const { shop } = z.object({ shop: z.string().min(1) }).parse(ctx.payload);
      return notifyShop(ctx.prisma, shop, mailer(), () => serviceProbe(ctx.prisma, shop));
    },
  };
}

export const notifyRecurringJobs: RecurringJob[] = [{ kind: NOTIFY_JOB.scan, everyMs: 60_000 }];
