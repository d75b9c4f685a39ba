/**
 * Files the app keeps itself (StoredFile): proof of delivery and warehouse photos copied from
 * the service's addresses, which expire, and the merchant's dispute attachments, which the
 * service copies from an unguessable address of the app that answers for an hour.
 *
 * The bytes live in PostgreSQL (a bytea column) by default: nothing else to run, backed up with
 * the database, the same in the embedded mode. With ARCHIVE_S3_URL they go to that bucket
 * instead, under <shop>/<purpose>/<sha256>, and the row keeps the key.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Prisma, PrismaClient, StoredFile } from "@prisma/client";
import { config } from "../config.server";
import { logger } from "../logger.server";
import { type Bucket, bucketFrom } from "./bucket.server";

export type FilePurpose = "proof_of_delivery" | "warehouse_photo" | "dispute_upload";

/** A kind of file the app accepts, known by its first bytes (never by its name or header). */
interface FileKind {
  type: string;
  ext: string;
  media: "image" | "video" | "document";
  test(b: Buffer): boolean;
}
const ascii = (b: Buffer, at: number, s: string) =>
  b.subarray(at, at + s.length).toString("latin1") === s;
const KINDS: FileKind[] = [
  { type: "image/jpeg", ext: "jpg", media: "image", test: (b) => b[0] === 0xff && b[1] === 0xd8 },
  { type: "image/png", ext: "png", media: "image", test: (b) => ascii(b, 1, "PNG\r\n") },
  { type: "image/gif", ext: "gif", media: "image", test: (b) => ascii(b, 0, "GIF8") },
  {
    type: "image/webp",
    ext: "webp",
    media: "image",
    test: (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP"),
  },
  { type: "video/quicktime", ext: "mov", media: "video", test: (b) => ascii(b, 4, "ftypqt") },
  { type: "video/mp4", ext: "mp4", media: "video", test: (b) => ascii(b, 4, "ftyp") },
  {
    type: "video/webm",
    ext: "webm",
    media: "video",
    test: (b) => b.readUInt32BE(0) === 0x1a45dfa3,
  },
  { type: "application/pdf", ext: "pdf", media: "document", test: (b) => ascii(b, 0, "%PDF-") },
];

/** The file's kind from its content, or undefined when it is none the app keeps. */
export function fileKind(bytes: Buffer): FileKind | undefined {
  if (bytes.length < 12) return undefined;
  return KINDS.find((k) => k.test(bytes));
}

export class FileRefusedError extends Error {
  override name = "FileRefusedError";
}

export interface NewFile {
  shopDomain: string;
  purpose: FilePurpose;
  orderId?: string | null;
  sourceUrl?: string | null;
  name?: string | null;
  bytes: Buffer;
  type: string;
  /** For dispute uploads: how long the public address answers. */
  publicForMs?: number;
}

let configured: Bucket | null | undefined;
/** The configured bucket, or null (the files then live in PostgreSQL). */
export function archiveBucket(): Bucket | null {
  if (configured === undefined)
    configured = config.ARCHIVE_S3_URL ? bucketFrom(config.ARCHIVE_S3_URL) : null;
  return configured;
}

/** Keeps a file (once per shop, purpose and source address), in the bucket when there is one. */
export async function saveFile(
  db: PrismaClient,
  f: NewFile,
  bucket: Bucket | null = archiveBucket(),
): Promise<StoredFile> {
  const sha = createHash("sha256").update(f.bytes).digest("hex");
  let objectKey: string | null = null;
  if (bucket) {
    objectKey = `${f.shopDomain}/${f.purpose}/${sha}`;
    await bucket.put(objectKey, f.bytes, f.type);
  }
  const data = {
    shopDomain: f.shopDomain,
    purpose: f.purpose,
    orderId: f.orderId ?? null,
    sourceUrl: f.sourceUrl ?? null,
    name: f.name?.slice(0, 200) ?? null,
    contentType: f.type,
    size: f.bytes.length,
    sha256: sha,
    data: objectKey ? null : new Uint8Array(f.bytes),
    objectKey,
    publicToken: f.publicForMs ? randomBytes(24).toString("base64url") : null,
    publicUntil: f.publicForMs ? new Date(Date.now() + f.publicForMs) : null,
  };
  if (!f.sourceUrl) return db.storedFile.create({ data });
  return db.storedFile.upsert({
    where: {
      shopDomain_purpose_sourceUrl: {
        shopDomain: f.shopDomain,
        purpose: f.purpose,
        sourceUrl: f.sourceUrl,
      },
    },
    create: data,
    update: {},
  });
}

type FilesDb = Pick<Prisma.TransactionClient, "storedFile">;

/**
 * Deletes the bucket objects of the files `where` names, but one that a file outside it still
 * names (the same bytes kept twice: one object). Before the rows: a retry after a failure finds
 * the rows and deletes again; an object already gone is no error. The number deleted.
 */
export async function eraseObjects(
  db: FilesDb,
  where: Prisma.StoredFileWhereInput,
  bucket: Bucket | null,
): Promise<number> {
  if (!bucket) return 0;
  const keysOf = async (w: Prisma.StoredFileWhereInput) =>
    new Set(
      (await db.storedFile.findMany({ where: w, select: { objectKey: true } })).map(
        (f) => f.objectKey!,
      ),
    );
  const keys = await keysOf({ ...where, objectKey: { not: null } });
  if (keys.size === 0) return 0;
  const shared = await keysOf({ objectKey: { in: [...keys] }, NOT: where });
  let deleted = 0;
  for (const key of keys) {
    if (shared.has(key)) continue;
    await bucket.delete(key);
    deleted++;
  }
  return deleted;
}

/** Deletes the files `where` names: their objects in the bucket first, then the rows. */
export async function deleteFiles(
  db: FilesDb,
  where: Prisma.StoredFileWhereInput,
  bucket: Bucket | null = archiveBucket(),
): Promise<{ files: number; objects: number }> {
  const objects = await eraseObjects(db, where, bucket);
  return { files: (await db.storedFile.deleteMany({ where })).count, objects };
}

/**
 * Dispute uploads whose public address no longer answers: the service copied each when the
 * dispute was sent (or the post failed and nothing uses it), so nothing reads them again.
 */
export function pruneUploads(
  db: FilesDb,
  now: number,
  bucket: Bucket | null = archiveBucket(),
): Promise<{ files: number; objects: number }> {
  return deleteFiles(db, { purpose: "dispute_upload", publicUntil: { lt: new Date(now) } }, bucket);
}

/** A kept file's bytes, from its row or its bucket; null when they cannot be had. */
export async function bytesOf(
  f: StoredFile,
  bucket: Bucket | null = archiveBucket(),
): Promise<Buffer | null> {
  if (f.data) return Buffer.from(f.data);
  if (!f.objectKey) return null;
  if (!bucket) {
    logger.error({ file: f.id }, "a file is in a bucket but ARCHIVE_S3_URL is not set");
    return null;
  }
  return bucket.get(f.objectKey);
}

/** A dispute upload by its public token while its address answers, or null. */
export async function publicFile(
  db: PrismaClient,
  token: string,
  now = Date.now(),
  bucket: Bucket | null = archiveBucket(),
) {
  if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return null;
  const f = await db.storedFile.findUnique({ where: { publicToken: token } });
  if (!f || !f.publicUntil || f.publicUntil.getTime() <= now) return null;
  const bytes = await bytesOf(f, bucket);
  return bytes ? { ...f, bytes } : null;
}

/** The reply of a stored file: its type, never sniffed by the browser, never cached by others. */
export function fileResponse(f: { bytes: Buffer; contentType: string; name: string | null }) {
  return new Response(new Uint8Array(f.bytes), {
    headers: {
      "content-type": f.contentType,
      "content-length": String(f.bytes.length),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=3600",
      "content-security-policy": "default-src 'none'; sandbox",
      "content-disposition": `inline; filename="${(f.name ?? "file").replace(/[^\w.-]/g, "_")}"`,
    },
  });
}

const LINK_MS = 3600_000;

function linkMac(id: string, until: number, secret: string): string {
  return createHmac("sha256", secret).update(`stored-file:${id}:${until}`).digest("base64url");
}

/**
 * A kept file's address for the merchant's pages: signed with the app's secret and good for an
 * hour (an <img> inside Shopify's admin carries no session token, so the link is the permission).
 * Relative: the page is on the app's own origin.
 */
export function fileLink(id: string, now = Date.now(), secret = config.SHOPIFY_API_SECRET): string {
  // Rounded up to 10 minutes: the page refreshes every few seconds, the images stay cached.
  const until = Math.ceil((now + LINK_MS) / 600_000) * 600_000;
  return `/files/s/${encodeURIComponent(id)}?u=${until}&m=${linkMac(id, until, secret)}`;
}

/** The file of a genuine, unexpired link (its bytes), or null. */
export async function fileOfLink(
  db: PrismaClient,
  id: string,
  search: URLSearchParams,
  now = Date.now(),
  secret = config.SHOPIFY_API_SECRET,
  bucket: Bucket | null = archiveBucket(),
) {
  const until = Number(search.get("u"));
  const got = Buffer.from(search.get("m") ?? "");
  const want = Buffer.from(linkMac(id, until, secret));
  if (!Number.isSafeInteger(until) || until <= now || until > now + 2 * LINK_MS) return null;
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
  const f = await db.storedFile.findUnique({ where: { id } });
  const bytes = f ? await bytesOf(f, bucket) : null;
  return f && bytes ? { ...f, bytes } : null;
}
