/**
 * The merchant's notification emails, one shop's turn: record what is new to tell
 * (detect.server.ts), then send the digest if one is due (digest.server.ts).
 */
import type { PrismaClient } from "@prisma/client";
import { balanceOf } from "../svc-account/account.server";
import { emailList, getSettings } from "../settings.server";
import { detectNotices, type Probe } from "./detect.server";

export type { Probe };
import { sendDigest } from "./digest.server";
import type { Mailer } from "./mailer.server";

/** The service asked for the balance: an outage shows as a failed answer. */
export async function serviceProbe(db: PrismaClient, shop: string): Promise<Probe> {
  const b = await balanceOf(db, shop);
  return { amount: b.amount, outage: b.outage };
}

/** One shop's turn: record what is new, then send the digest if one is due. */
export async function notifyShop(
  db: PrismaClient,
  shop: string,
  mailer: Mailer | null,
  probe: () => Promise<Probe>,
  now = Date.now(),
) {
  const settings = await getSettings(db, shop);
  if (emailList(settings.notifyEmails).length === 0) return { skipped: "no addresses" };
  const detected = await detectNotices(db, shop, settings, probe, now);
  const digest = await sendDigest(db, shop, settings, mailer, now);
  return { ...detected, ...digest };
}
