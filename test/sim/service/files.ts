/**
 * The service's file host: proof-of-delivery and warehouse-photo files at addresses of the
 * simulator's own (`/__files/...`, no token, as the live service's public links), the files
 * uploadFile copied, and the switch that makes the archived links stop answering (as the live
 * service's links expire). Also uploadFile's download: the contract's source rules (Part 3
 * §4.13.9), time limits, size caps and type detection from content.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";

export interface SimFile {
  type: string;
  bytes: Buffer;
  /** Who asked for it to be kept (uploadFile), for the file list of the admin API. */
  source?: string;
}

export interface FileHost {
  files: Map<string, SimFile>;
  /** Every address uploadFile downloaded (after redirects), in order. */
  fetched: string[];
  expired: boolean;
}

export function createFileHost(): FileHost {
  return { files: new Map(), fetched: [], expired: false };
}

/** A tiny valid image of each kind the service hands out (a 1×1 JPEG). */
export const JPEG_1PX = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////" +
    "////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQAB" +
    "PxA=",
  "base64",
);

/** The key of a proof-of-delivery or photo file, made on first use. */
export function ensureFile(host: FileHost, key: string): void {
  if (!host.files.has(key)) host.files.set(key, { type: "image/jpeg", bytes: JPEG_1PX });
}

/** GET /__files/<key>: the bytes, or 403 once the links expired (a signed link's refusal). */
export function serveFile(host: FileHost, res: ServerResponse, key: string): void {
  const f = host.files.get(key);
  if (!f) {
    res.writeHead(404, { "content-type": "text/plain" }).end("no such file");
    return;
  }
  // Copies uploadFile made do not expire; the service's own proof and photo links do.
  if (host.expired && !key.startsWith("u/")) {
    res.writeHead(403, { "content-type": "application/xml" }).end("<Error>Expired</Error>");
    return;
  }
  res.writeHead(200, { "content-type": f.type, "content-length": f.bytes.length }).end(f.bytes);
}

const TEN_MB = 10 * 1024 * 1024;

/** The kind of a file from its first bytes, as the service detects it; undefined = refused. */
export function sniff(
  bytes: Buffer,
): { kind: "image" | "video"; ext: string; type: string } | undefined {
  const at = (i: number, s: string) => bytes.subarray(i, i + s.length).toString("latin1") === s;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { kind: "image", ext: "jpg", type: "image/jpeg" };
  if (at(0, "\x89PNG\r\n\x1a\n")) return { kind: "image", ext: "png", type: "image/png" };
  if (at(0, "GIF87a") || at(0, "GIF89a")) return { kind: "image", ext: "gif", type: "image/gif" };
  if (at(0, "RIFF") && at(8, "WEBP")) return { kind: "image", ext: "webp", type: "image/webp" };
  if (at(4, "ftypqt")) return { kind: "video", ext: "mov", type: "video/quicktime" };
  if (at(4, "ftyp")) return { kind: "video", ext: "mp4", type: "video/mp4" };
  if (bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3])))
    return { kind: "video", ext: "webm", type: "video/webm" };
  return undefined;
}

export interface DownloadLimits {
  /** Why an address may not be fetched (the source rules), or undefined. */
  refuse(url: string): string | undefined;
  firstByteMs?: number;
  totalMs?: number;
}

/**
 * Downloads a source as uploadFile does: at most 3 redirects, each target checked; the first
 * response within 20 s and the whole within 120 s; HTTP 200 only; at most 10 MB.
 * Throws an Error whose message is the refusal.
 */
export async function download(
  host: FileHost,
  source: string,
  limits: DownloadLimits,
): Promise<{ bytes: Buffer; kind: "image" | "video"; ext: string; type: string }> {
  const total = AbortSignal.timeout(limits.totalMs ?? 120_000);
  let url = source;
  for (let hop = 0; ; hop++) {
    const problem = limits.refuse(url);
    if (problem) throw new Error(hop ? `redirect target refused: ${problem}` : problem);
    const first = AbortSignal.timeout(limits.firstByteMs ?? 20_000);
    let res: Response;
    try {
      res = await fetch(url, { redirect: "manual", signal: AbortSignal.any([first, total]) });
    } catch {
      throw new Error("fileUrl did not answer in time or could not be reached");
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      await res.body?.cancel();
      if (hop >= 3) throw new Error("fileUrl redirects more than 3 times");
      url = new URL(res.headers.get("location")!, url).toString();
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`fileUrl answered HTTP ${res.status}`);
    }
    host.fetched.push(url);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > TEN_MB) throw new Error("file is larger than 10 MB");
        chunks.push(Buffer.from(chunk));
      }
    } catch (e) {
      if (e instanceof Error && e.message.includes("10 MB")) throw e;
      throw new Error("fileUrl did not finish downloading in time");
    }
    const bytes = Buffer.concat(chunks);
    const kind = sniff(bytes);
    if (!kind) throw new Error("file type is not supported (jpg, png, webp, gif, mp4, mov, webm)");
    return { bytes, ...kind };
  }
}

/** Keeps a copied file under a new, non-expiring address; returns its key. */
export function keepUpload(host: FileHost, file: SimFile & { ext: string }): string {
  const key = `u/${randomBytes(12).toString("hex")}.${file.ext}`;
  host.files.set(key, { type: file.type, bytes: file.bytes, source: file.source });
  return key;
}
