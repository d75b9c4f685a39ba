/**
 * The plumbing of the merchant's dispute forms (part 3 §4.13): the form's outcome as the pages
 * show it (`runDisputeForm`), the refusals in the merchant's words, the message's rules, and
 * the attachments (files and addresses) copied to the service by uploadFile, never retried.
 * The use cases are open.server.ts and reply-cancel.server.ts.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { deleteFiles, fileKind, saveFile } from "../archive/files.server";
import {
  readUploadForm,
  UploadRefusedError,
  type UploadLimits,
} from "../page-kit/upload-form.server";
import { accountOf, isOutage } from "../svc-account/account.server";
import { logger } from "../logger.server";
import { svcClientForAccount, type SvcClient } from "../svc/client.server";
import { SvcDisputeStateError, SvcError, SvcNotFoundError, SvcParamError } from "../svc/errors";
import { storedReplyText } from "../svc/dispute-shapes";
import type { SyncAccount } from "./sync.server";

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

/** What a dispute form's post may carry: 6 files of 10 MB, text fields of 64 KB. */
export const DISPUTE_UPLOAD: UploadLimits = {
  fileField: "files",
  maxFiles: ATTACHMENTS_MAX,
  maxFileBytes: MAX_ATTACHMENT_BYTES,
  maxFieldBytes: 64 * 1024,
};

/**
 * A dispute page's post, read as a stream within DISPUTE_UPLOAD: its form, or the refusal the
 * form shows by its field (nothing was kept, nothing sent).
 */
export async function disputeFormOf(
  request: Request,
  shop: string,
  intent: string,
): Promise<FormData | DisputeFormResult> {
  try {
    return await readUploadForm(request, shop, DISPUTE_UPLOAD);
  } catch (error) {
    if (!(error instanceof UploadRefusedError)) throw error;
    return { ok: false, intent, errors: { [error.field]: error.message } };
  }
}

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
  // Every file and address is checked before anything is kept: a refusal keeps nothing.
  const checked: { f: File; bytes: Buffer; type: string; video: boolean }[] = [];
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
    checked.push({ f, bytes, type: kind.type, video: kind.media === "video" });
  }
  const linked = addresses.map((a, i) => checkedAddress(a, i, addresses.length));
  // Kept, then copied by the service; a failure on the way deletes what this post kept.
  const kept: string[] = [];
  try {
    const sources: { url: string; video: boolean }[] = [];
    for (const c of checked) {
      const file = await saveFile(db, {
        shopDomain: shop,
        purpose: "dispute_upload",
        name: c.f.name,
        bytes: c.bytes,
        type: c.type,
        publicForMs: UPLOAD_ANSWERS_MS,
      });
      kept.push(file.id);
      sources.push({
        url: `${appUrl.replace(/\/$/, "")}/files/${file.publicToken}`,
        video: c.video,
      });
    }
    sources.push(...linked);
    const out = { imageUrl: [] as string[], videoUrl: [] as string[] };
    for (const s of sources) {
      const copied = await client.disputes.uploadFile(s.url);
      (s.video ? out.videoUrl : out.imageUrl).push(copied);
    }
    return out;
  } catch (error) {
    // Rows and their objects in the bucket: a refused post leaves no file anywhere.
    if (kept.length > 0) await deleteFiles(db, { id: { in: kept }, shopDomain: shop });
    throw error;
  }
}

/** One line of the addresses field as a source, or the refusal that names the line. */
function checkedAddress(a: string, i: number, lines: number): { url: string; video: boolean } {
  const line = lines > 1 ? `Line ${i + 1}: ` : "";
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
  return { url: a, video: /\.(mp4|mov|webm)(\?|$)/i.test(url.pathname) };
}

/** A message to the service: trimmed, 1 to 500 characters, words left once emoji are removed. */
export const messageText = (empty: string) =>
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
