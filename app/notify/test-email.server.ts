/** "Send a test email" on the settings page: one short email to the saved addresses, now. */
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { config } from "../config.server";
import { emailList, getSettings } from "../settings.server";
import { configuredMailer, type Mailer } from "./mailer.server";
import { digestLinks, mailHost } from "./digest.server";

/** The addresses it went to, or why it could not go (a sentence for the merchant). */
export async function sendTestEmail(
  db: PrismaClient,
  shop: string,
  mailer: Mailer | null = configuredMailer(),
): Promise<string[] | string> {
  const to = emailList((await getSettings(db, shop)).notifyEmails);
  if (to.length === 0) return "Save at least one address first";
  if (!mailer) return "Email is not set up on this server (SMTP_URL): ask the app's operator";
  const links = digestLinks(shop);
  try {
    await mailer.send({
      messageId: `<test-${randomUUID()}@${mailHost()}>`,
      from: config.MAIL_FROM,
      to,
      subject: `Test email · ${shop.replace(/\.myshopify\.com$/, "")}`,
      text: `This is a test of the notification emails of ${shop}. Digests come here when orders fail or stay held, the balance runs low, the service stops answering, or webhooks stop.\n\nOpen the app: ${links.dashboard}`,
      html: `<p>This is a test of the notification emails of <strong>${shop}</strong>. Digests come here when orders fail or stay held, the balance runs low, the service stops answering, or webhooks stop.</p><p><a href="${links.dashboard}">Open the app</a></p>`,
    });
  } catch (error) {
    return `The email could not be sent: ${error instanceof Error ? error.message : String(error)}`;
  }
  return to;
}
