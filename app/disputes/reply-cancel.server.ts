/**
 * What the merchant does on a dispute once it is listed (part 3 §4.13): reply (once per form
 * key, through `replyOnce`: after an unknown outcome the messages are read before sending
 * again), cancel, and read it again from the service.
 */
import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "@prisma/client";
import { z } from "zod";
import { addTimeline } from "../orders/timeline.server";
import type { SvcClient } from "../svc/client.server";
import { SvcError, SvcParamError } from "../svc/errors";
import { storedReplyText } from "../svc/dispute-shapes";
import { DisputeInputError, attachmentsToService, messageText } from "./forms.server";
import { syncRecord, type SyncAccount } from "./sync.server";

/** Reads one dispute again (after a reply or a cancel, or when the merchant asks), by its id. */
export async function refreshOne(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  svcDisputeId: string,
) {
  if (!/^\d+$/.test(svcDisputeId)) return;
  const page = await client.disputes.list({ disputeId: Number(svcDisputeId), pageSize: 1 });
  for (const r of page.items) await syncRecord(db, client, account, r, false);
}

async function ownDispute(db: PrismaClient, shop: string, id: string) {
  const d = await db.dispute.findFirst({ where: { id, shopDomain: shop } });
  if (!d) throw new DisputeInputError("This dispute is not on your account.");
  if (d.svcDisputeId.startsWith("pending:"))
    throw new DisputeInputError(
      "The service has not listed this dispute yet. Try again in a minute.",
    );
  return d;
}

/** The prefix of a reply's lock row (a form key sent), which no page shows. */
export const REPLY_KEY = "key:";

const replySchema = () =>
  z.object({
    text: messageText("Write a message"),
    clientKey: z.string().min(8).max(64),
  });

/**
 * Replies to a dispute: once per form key, through replyOnce (after a time-out the messages are
 * read before sending again). The lock is a `key:` message row, never shown and kept once the
 * reply may have gone, so that the same form never sends again, even after the read-back has
 * replaced the `pending:` stand-in (the message as shown until the service lists it).
 */
export async function replyToDispute(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  appUrl: string,
  input: { id: string; text: string; clientKey: string; files: File[]; addresses: string[] },
): Promise<{ sent: boolean; already: boolean }> {
  const parsed = replySchema().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DisputeInputError(issue.message, String(issue.path[0] ?? "form"));
  }
  const d = await ownDispute(db, account.shopDomain, input.id);
  const hash = createHash("sha256").update(parsed.data.clientKey).digest("hex").slice(0, 32);
  const [keyId, lockId] = [`${REPLY_KEY}${hash}`, `pending:${hash}`];
  const row = (messageId: string, text: string) =>
    db.disputeMessage.create({
      data: { disputeId: d.id, messageId, fromSupport: false, at: new Date(), text },
    });
  try {
    await db.$transaction([row(keyId, ""), row(lockId, storedReplyText(parsed.data.text))]);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      return { sent: false, already: true };
    throw error;
  }
  try {
    const files = await attachmentsToService(db, client, account.shopDomain, appUrl, input);
    const r = await client.disputes.replyOnce({
      disputeId: d.svcDisputeId,
      messageText: parsed.data.text,
      ...(files.imageUrl.length ? { imageUrl: files.imageUrl } : {}),
      ...(files.videoUrl.length ? { videoUrl: files.videoUrl } : {}),
    });
    await db.disputeMessage.updateMany({
      where: { disputeId: d.id, messageId: lockId },
      data: { imageUrls: files.imageUrl, videoUrls: files.videoUrl },
    });
    await db.dispute.update({ where: { id: d.id }, data: { unread: false } });
    await refreshOne(db, client, account, d.svcDisputeId).catch(() => undefined);
    return { sent: r.sent, already: r.alreadyThere };
  } catch (error) {
    // Not sent (a refusal): the lock goes so that a corrected message can be sent.
    if (!(error instanceof SvcError && error.outcomeUnknown)) {
      await db.disputeMessage.deleteMany({
        where: { disputeId: d.id, messageId: { in: [keyId, lockId] } },
      });
    }
    throw error;
  }
}

/** Cancels a dispute at the service, then reads it again. */
export async function cancelDispute(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  id: string,
): Promise<void> {
  const d = await ownDispute(db, account.shopDomain, id);
  if (d.cancelledAt) return;
  if (!d.svcOrderId) throw new DisputeInputError("The dispute's order is not known yet.");
  try {
    await client.disputes.cancel(d.svcOrderId, d.svcDisputeId);
  } catch (error) {
    // Sent twice (a double click, or a lost answer): refused, and the dispute reads cancelled.
    if (!(error instanceof SvcParamError)) throw error;
    await refreshOne(db, client, account, d.svcDisputeId);
    const now = await db.dispute.findUniqueOrThrow({ where: { id: d.id } });
    if (!/cancel/i.test(now.status)) throw error;
  }
  await db.dispute.update({
    where: { id: d.id },
    data: { cancelledAt: new Date() },
  });
  if (d.orderId)
    await addTimeline(db, d.orderId, {
      step: "dispute",
      outcome: "info",
      message: `Dispute ${d.svcDisputeId} cancelled.`,
    });
  await refreshOne(db, client, account, d.svcDisputeId).catch(() => undefined);
}
