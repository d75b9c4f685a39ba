/**
 * What the merchant does with disputes (part 3 §4.13): open one on an order
 * (disputeProducts → disputeConfirmInfo → create), reply, cancel, and attach files.
 *
 * None of create, reply, cancel and uploadFile is retried blindly:
 * - create carries our businessDisputeId, unique per dispute at the service: after an unknown
 *   outcome the same create is sent once more, and "already exists" means it was made;
 * - reply goes through `replyOnce` (the messages are read before sending again);
 * - a double submit of the same form (its one-time key) finds the first one's row.
 */
import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "@prisma/client";
import { z } from "zod";
import { fileKind, saveFile } from "../archive/files.server";
import { accountOf, isOutage } from "../svc-account/account.server";
import { addTimeline } from "../orders/timeline.server";
import { logger } from "../logger.server";
import { svcClientForAccount, type SvcClient } from "../svc/client.server";
import { SvcDisputeStateError, SvcError, SvcNotFoundError, SvcParamError } from "../svc/errors";
import { storedReplyText, type DisputeConfirmInfo } from "../svc/dispute-shapes";
import { syncRecord, type SyncAccount } from "./sync.server";

export class DisputeInputError extends Error {
  override name = "DisputeInputError";
  constructor(
    message: string,
    readonly field = "form",
  ) {
    super(message);
  }
}

/** The service's refusals in the merchant's words; `reading`: nothing was being sent. */
export function disputeErrorText(error: unknown, reading = false): string {
  if (error instanceof DisputeInputError) return error.message;
  if (reading && isOutage(error))
    return "The service is not answering now. Nothing changed; the app checks again by itself every 10 minutes.";
  if (error instanceof SvcDisputeStateError)
    return "This dispute no longer takes messages: the service accepts them only while it is being processed (or, as a note, once it is completed).";
  if (error instanceof SvcNotFoundError)
    return "The service does not know this dispute or order on your account (it may have been opened on another account).";
  if (error instanceof SvcParamError) return `The service refused it: ${error.message}`;
  if (error instanceof SvcError && error.outcomeUnknown)
    return "The service did not answer clearly (it may be down). Nothing is sent twice: check the dispute in a minute.";
  if (error instanceof SvcError) return `The service did not take it: ${error.message}`;
  return "The service could not be reached. Try again in a minute.";
}

const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
const UPLOAD_ANSWERS_MS = 3600_000;
const ATTACHMENTS_MAX = 6;

/**
 * The merchant's attachments (uploaded files and addresses) as service addresses: an uploaded
 * file is kept by the app and offered to uploadFile at an unguessable address that answers for
 * an hour; an address is handed to uploadFile as it is (the service copies it, so an expiring
 * link is fine).
 */
export async function attachmentsToService(
  db: PrismaClient,
  client: SvcClient,
  shop: string,
  appUrl: string,
  input: { files: File[]; addresses: string[] },
): Promise<{ imageUrl: string[]; videoUrl: string[] }> {
  const files = input.files.filter((f) => f.size > 0);
  const addresses = input.addresses.map((a) => a.trim()).filter(Boolean);
  if (files.length + addresses.length > ATTACHMENTS_MAX)
    throw new DisputeInputError(`Attach at most ${ATTACHMENTS_MAX} files.`, "files");
  const sources: { url: string; video: boolean }[] = [];
  for (const f of files) {
    if (f.size > MAX_ATTACHMENT_BYTES)
      throw new DisputeInputError(`${f.name} is larger than 10 MB.`, "files");
    const bytes = Buffer.from(await f.arrayBuffer());
    const kind = fileKind(bytes);
    if (!kind || kind.media === "document")
      throw new DisputeInputError(
        `${f.name} is not a photo (jpg, png, webp, gif) or a video (mp4, mov, webm).`,
        "files",
      );
    const kept = await saveFile(db, {
      shopDomain: shop,
      purpose: "dispute_upload",
      name: f.name,
      bytes,
      type: kind.type,
      publicForMs: UPLOAD_ANSWERS_MS,
    });
    sources.push({
      url: `${appUrl.replace(/\/$/, "")}/files/${kept.publicToken}`,
      video: kind.media === "video",
    });
  }
  for (const [i, a] of addresses.entries()) {
    const line = addresses.length > 1 ? `Line ${i + 1}: ` : "";
    const shown = a.length > 80 ? `${a.slice(0, 80)}…` : a;
    let url: URL | null = null;
    try {
      url = /\s/.test(a) ? null : new URL(a);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname)
      throw new DisputeInputError(
        `${line}"${shown}" is not a web address. Put one address on each line, starting with https:// and without spaces.`,
        "addresses",
      );
    sources.push({ url: a, video: /\.(mp4|mov|webm)(\?|$)/i.test(url.pathname) });
  }
  const out = { imageUrl: [] as string[], videoUrl: [] as string[] };
  for (const s of sources) {
    const copied = await client.disputes.uploadFile(s.url);
    (s.video ? out.videoUrl : out.imageUrl).push(copied);
  }
  return out;
}

/** A message to the service: trimmed, 1 to 500 characters, words left once emoji are removed. */
const messageText = (empty: string) =>
  z
    .string()
    .transform((t) => t.trim())
    .pipe(
      z
        .string()
        .min(1, empty)
        .max(500, "At most 500 characters")
        .refine((t) => storedReplyText(t) !== "", "Emoji are removed by the service: add words"),
    );

/** Built per call (cheap), as replySchema: nothing of the module runs on import but constants. */
const openSchema = () =>
  z.object({
    reasonId: z.coerce.number().int().positive("Choose a reason"),
    expectType: z.enum(["1", "2"], "Choose a refund or a reissue").transform(Number),
    refundType: z.enum(["1", "2"], "Choose where the refund goes").transform(Number),
    text: messageText("Say what went wrong"),
    clientKey: z.string().min(8).max(64),
  });

export interface OpenInput {
  orderId: string;
  /** lineItemId → quantity (0 = not disputed). */
  quantities: Record<string, number>;
  reasonId: string;
  expectType: string;
  refundType: string;
  text: string;
  clientKey: string;
  files: File[];
  addresses: string[];
}

/** The order's lines and choices for the open form (disputeProducts, then confirm info). */
export async function openOptions(client: SvcClient, svcOrderId: string) {
  const products = await client.disputes.products(svcOrderId);
  const choosable = products.productInfoList.filter(
    (l) => l.canChoose !== false && (l.quantity ?? 0) > 0,
  );
  let info: DisputeConfirmInfo | null = null;
  if (choosable.length) {
    info = await client.disputes.confirmInfo(
      svcOrderId,
      choosable.map((l) => ({
        lineItemId: l.lineItemId ?? undefined,
        quantity: 1,
        price: l.price ?? "0",
      })),
    );
  }
  return {
    orderNumber: products.orderNumber ?? null,
    lines: products.productInfoList.map((l) => ({
      lineItemId: l.lineItemId ?? "",
      name: l.svcProductName ?? l.sku ?? "Product",
      sku: l.sku ?? null,
      image: l.svcImage ?? null,
      price: l.price ?? "0",
      available: l.quantity ?? 0,
      canChoose: l.canChoose !== false && (l.quantity ?? 0) > 0,
    })),
    reasons: (info?.disputeReasonList ?? []).map((r) => ({
      id: String(r.disputeReasonId),
      name: r.reasonName ?? `Reason ${r.disputeReasonId}`,
    })),
    expectOptions: (info?.expectResultOptionList ?? ["1", "2"]).map(String),
  };
}

/** Our businessDisputeId for a form's one-time key (a double submit gives the same one). */
function businessId(shop: string, clientKey: string): string {
  return `bd-${createHash("sha256").update(`${shop}:${clientKey}`).digest("hex").slice(0, 32)}`;
}

/**
 * Opens a dispute on a shop order. The app's row (a `pending:` id until the service lists it)
 * is written first: a second submit of the same form meets it and sends nothing.
 */
export async function openDispute(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  appUrl: string,
  input: OpenInput,
): Promise<{ disputeId: string; already: boolean }> {
  const parsed = openSchema().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DisputeInputError(issue.message, String(issue.path[0] ?? "form"));
  }
  const form = parsed.data;
  const order = await db.shopOrder.findFirst({
    where: { id: input.orderId, shopDomain: account.shopDomain },
    select: { id: true, svcOrderId: true, shopifyOrderName: true, paidAt: true },
  });
  if (!order?.svcOrderId || !order.paidAt)
    throw new DisputeInputError("Disputes can be opened on orders paid at the service only.");
  const bid = businessId(account.shopDomain, form.clientKey);
  const existing = await db.dispute.findFirst({ where: { businessDisputeId: bid } });
  if (existing) return { disputeId: existing.id, already: true };

  // The lock first: a second submit of the same form, even at the same moment, stops here.
  let row;
  try {
    row = await db.dispute.create({
      data: {
        shopDomain: account.shopDomain,
        svcAccountId: account.id,
        svcDisputeId: `pending:${bid}`,
        businessDisputeId: bid,
        orderId: order.id,
        svcOrderId: order.svcOrderId,
        status: "Sent",
        expectType: form.expectType,
        svcCreatedAt: new Date(),
        messages: {
          create: {
            messageId: `pending:${bid}`,
            fromSupport: false,
            at: new Date(),
            text: storedReplyText(form.text),
          },
        },
      },
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const other = await db.dispute.findFirst({ where: { businessDisputeId: bid } });
      if (other) return { disputeId: other.id, already: true };
    }
    throw error;
  }
  const id = row.id;
  try {
    const { chosen, reason, files } = await prepare();
    await createOnce(client, {
      businessDisputeId: bid,
      orderId: order.svcOrderId,
      disputeReasonId: form.reasonId,
      expectType: form.expectType as 1 | 2,
      refundType: form.refundType as 1 | 2,
      messageText: form.text,
      ...(files.imageUrl.length ? { imageUrl: files.imageUrl } : {}),
      ...(files.videoUrl.length ? { videoUrl: files.videoUrl } : {}),
      productInfoList: chosen,
    });
    await addTimeline(db, order.id, {
      step: "dispute",
      outcome: "info",
      message: `Dispute opened: ${form.expectType === 1 ? "refund" : "reissue"} of ${chosen.reduce((n, l) => n + l.quantity, 0)} item(s), ${reason}.`,
    });
  } catch (error) {
    // Not made (refused, or bad input): the row goes, so the merchant can correct and send
    // again. After an unknown outcome it stays: the sync claims it if the service made it.
    if (!(error instanceof SvcError && error.outcomeUnknown))
      await db.dispute.delete({ where: { id } });
    throw error;
  }
  // Find it in the service's list now, so the page shows its id and status.
  await refreshOrderDisputes(db, client, account, order.svcOrderId).catch(() => undefined);
  return { disputeId: id, already: false };

  /** The lines, reason and outcome checked against the service; the attachments copied. */
  async function prepare() {
    const svcOrderId = order!.svcOrderId!;
    const products = await client.disputes.products(svcOrderId);
    const chosen = chosenLines(products.productInfoList, input.quantities);
    const info = await client.disputes.confirmInfo(svcOrderId, chosen);
    const reason = info.disputeReasonList.find((r) => r.disputeReasonId === form.reasonId);
    if (!reason)
      throw new DisputeInputError("Choose one of the reasons the service offers.", "reasonId");
    if (!info.expectResultOptionList.map(String).includes(String(form.expectType)))
      throw new DisputeInputError("The service does not offer that outcome here.", "expectType");
    const files = await attachmentsToService(db, client, account.shopDomain, appUrl, input);
    await db.dispute.update({
      where: { id },
      data: {
        reason: reason.reasonName,
        orderNumber: info.orderNumber ?? null,
        lines: chosen as unknown as Prisma.InputJsonValue,
      },
    });
    return { chosen, reason: reason.reasonName ?? "reason given", files };
  }
}

/**
 * The lines a dispute form asks for, checked against the order's lines at the service: each
 * quantity is a whole number no larger than what can be disputed, and says so by name when it
 * is (99 asked of 1 is "more than the 1 ordered", not "choose a line"); a quantity for a line
 * the order no longer has is refused, never dropped. Only when nothing is asked for at all is
 * the answer "choose at least one line".
 */
export function chosenLines(
  lines: {
    lineItemId?: string | null;
    svcProductName?: string | null;
    sku?: string | null;
    quantity?: number | null;
    canChoose?: boolean | null;
    price?: string | null;
  }[],
  quantities: Record<string, number>,
): { lineItemId: string | undefined; quantity: number; price: string }[] {
  const known = new Set(lines.map((l) => l.lineItemId ?? ""));
  for (const [id, q] of Object.entries(quantities)) {
    if (q && !known.has(id))
      throw new DisputeInputError(
        "One of the lines is no longer on the order at the service: reload the page and choose again.",
        "lines",
      );
  }
  const chosen = lines.flatMap((l) => {
    const q = quantities[l.lineItemId ?? ""] ?? 0;
    if (!q) return [];
    const name = l.svcProductName ?? l.sku ?? "A line";
    const most = l.quantity ?? 0;
    if (!Number.isInteger(q) || q < 0)
      throw new DisputeInputError(`${name}: quantities are whole numbers, 0 or more.`, "lines");
    if (l.canChoose === false)
      throw new DisputeInputError(`${name}: an open dispute already covers it.`, "lines");
    if (q > most)
      throw new DisputeInputError(
        `${name}: ${q} is more than the ${most} ordered; at most ${most} can be disputed.`,
        "lines",
      );
    return [{ lineItemId: l.lineItemId ?? undefined, quantity: q, price: l.price ?? "0" }];
  });
  if (chosen.length === 0)
    throw new DisputeInputError(
      "Choose at least one line: give the quantity of each item that went wrong.",
      "lines",
    );
  return chosen;
}

/** create, and once more after an unknown outcome: "already exists" then means it was made. */
async function createOnce(
  client: SvcClient,
  request: Parameters<SvcClient["disputes"]["create"]>[0],
) {
  try {
    await client.disputes.create(request);
  } catch (error) {
    if (!(error instanceof SvcError && error.outcomeUnknown)) throw error;
    try {
      await client.disputes.create(request);
    } catch (again) {
      if (again instanceof SvcParamError && /already exists/i.test(again.message)) return;
      throw again;
    }
  }
}

/** Reads the disputes of one service order (list by orderId) into the app. */
export async function refreshOrderDisputes(
  db: PrismaClient,
  client: SvcClient,
  account: SyncAccount,
  svcOrderId: string,
) {
  const page = await client.disputes.list({ orderId: svcOrderId, pageSize: 50 });
  for (const r of page.items) await syncRecord(db, client, account, r, false);
}

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

/** The files and addresses a dispute form carries (inputs `files` and `addresses`, one a line). */
export function attachmentsOf(form: FormData): { files: File[]; addresses: string[] } {
  const files = form.getAll("files").filter((f): f is File => typeof f === "object" && f.size > 0);
  return { files, addresses: addressLines(String(form.get("addresses") ?? "")) };
}

/**
 * The addresses field, one address a line as its help text says. A line is never split at its
 * spaces: an address with a space in it is one (bad or good) address, not two.
 */
export function addressLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((a) => a.trim())
    .filter(Boolean);
}

export type DisputeFormResult =
  | { ok: true; intent: string; message: string; id?: string }
  | { ok: false; intent: string; errors: Record<string, string> };

/**
 * Runs a dispute form's use case for a shop: the connected account and its client, and the
 * outcome as the pages show it (a toast, or an error by field; nothing changed on a refusal).
 */
export async function runDisputeForm(
  db: PrismaClient,
  shop: string,
  intent: string,
  run: (
    client: SvcClient,
    account: SyncAccount,
  ) => Promise<string | { message: string; id: string }>,
): Promise<DisputeFormResult> {
  const account = await accountOf(db, shop);
  if (!account?.shopDomain)
    return { ok: false, intent, errors: { form: "Connect a service account first (Settings)." } };
  const client = await svcClientForAccount(account.id, { prisma: db, timeoutMs: 15_000 });
  try {
    const r = await run(client, { id: account.id, shopDomain: account.shopDomain });
    return typeof r === "string" ? { ok: true, intent, message: r } : { ok: true, intent, ...r };
  } catch (error) {
    if (!(error instanceof DisputeInputError) && !(error instanceof SvcError)) {
      // Not the service's answer nor the merchant's input: the operator needs to see it.
      logger.error(
        { err: error instanceof Error ? error.message : String(error), intent },
        "dispute form failed",
      );
    }
    const field = error instanceof DisputeInputError ? error.field : "form";
    return { ok: false, intent, errors: { [field]: disputeErrorText(error, intent === "check") } };
  }
}
