/**
 * The sandbox's caught emails: the sandbox runs a mail catcher (a real SMTP server, see
 * test/sim/mail) and points SMTP_URL at it; this reads what it caught, and runs the shop's
 * notification turn at once ("Check now") instead of at the next minute's scan.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { config } from "../config.server";
import { configuredMailer } from "../notify/mailer.server";
import { notifyShop, serviceProbe } from "../notify/notices.server";

const caughtSchema = z.array(
  z.object({
    messageId: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    subject: z.string(),
    text: z.string(),
    receivedAt: z.string(),
  }),
);

export type CaughtMail = z.infer<typeof caughtSchema>[number];

/** Newest first; null when the sandbox has no mail catcher; a sentence when it fails. */
export async function caughtMails(): Promise<CaughtMail[] | null | string> {
  if (!config.SANDBOX_MAIL_SIM_URL) return null;
  try {
    const res = await fetch(`${config.SANDBOX_MAIL_SIM_URL}/mails`, {
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) return `The mail catcher answered HTTP ${res.status}.`;
    return caughtSchema.parse(await res.json()).reverse();
  } catch {
    return "The mail catcher does not answer: the emails it caught cannot be shown.";
  }
}

export async function checkNotificationsNow(db: PrismaClient, shop: string) {
  return notifyShop(db, shop, configuredMailer(), () => serviceProbe(db, shop));
}
