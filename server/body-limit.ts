/**
 * Request bodies, limited per route before anything reads them.
 *
 * A declared Content-Length over the route's limit is answered 413 at once, without reading a
 * byte; a chunked body is counted as it streams and cut at the limit with 413. A refused body
 * is never buffered: what the client still sends is read and dropped for a moment (so it can
 * read the 413 instead of meeting a reset), then the connection is closed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface BodyLimits {
  /** Shopify's webhooks (/webhooks/…). */
  shopifyWebhook: number;
  /** The fulfilment service's webhooks (/webhooks/svc/…); as MAX_BODY_BYTES of svc.server. */
  svcWebhook: number;
  /** The service's authorization-code receiver (/svc/auth/callback). */
  codeReceiver: number;
  /** The embedded admin's pages and form posts (/app/…, /auth/…). */
  admin: number;
  /** The dispute pages' multipart posts, which carry attachments (up to 6 files of 10 MB). */
  disputeUpload: number;
  /** Everything else. */
  other: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  shopifyWebhook: 1024 * 1024,
  svcWebhook: 256 * 1024,
  codeReceiver: 8 * 1024,
  admin: 1024 * 1024,
  // 6 files of 10 MB and the form's fields; the route reads it as a stream within those.
  disputeUpload: 61 * 1024 * 1024,
  other: 16 * 1024,
};

/**
 * After a refusal: how long what the client still sends is read and dropped. Closing a socket
 * with unread data sends a reset, and a reset makes the client's system discard the answer it
 * has not read yet; so the server reads (memory flat, time bounded) until the client, having
 * read the answer, closes.
 */
const LINGER_MS = 3000;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body over ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/**
 * The route's limit. Only a multipart post to a dispute page takes the upload limit; its other
 * posts (a cancel, a check) are admin form posts.
 */
export function bodyLimitFor(pathname: string, limits: BodyLimits, contentType?: string): number {
  if (pathname.startsWith("/webhooks/svc/")) return limits.svcWebhook;
  if (pathname.startsWith("/webhooks/")) return limits.shopifyWebhook;
  if (pathname === "/svc/auth/callback" || pathname === "/svc/auth/callback/") {
    return limits.codeReceiver;
  }
  if (pathname.startsWith("/app/disputes/") && /^multipart\/form-data\b/i.test(contentType ?? ""))
    return limits.disputeUpload;
  if (/^\/(app|auth)(\/|$)/.test(pathname)) return limits.admin;
  return limits.other;
}

/** Whether the request announces a body (a length over zero, or a chunked transfer). */
export function announcesBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = req.headers["content-length"];
  return length !== undefined && length !== "0";
}

export interface Refusal {
  status: 400 | 413;
  message: string;
}

/** Checks what the headers say, before any byte of the body is read. */
export function checkDeclaredBody(req: IncomingMessage, limit: number): Refusal | null {
  const method = req.method ?? "GET";
  if ((method === "GET" || method === "HEAD") && announcesBody(req)) {
    return { status: 400, message: `a ${method} request takes no body` };
  }
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return { status: 413, message: "request body too large" };
  return null;
}

/**
 * Answers with a refusal and closes the connection (Connection: close), dropping whatever the
 * client still sends for a moment so that it reads the answer rather than a reset.
 */
export function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  lingerThenClose(req);
  if (!res.headersSent && !res.destroyed) {
    answerError(res, refusal.status, refusal.message, { Connection: "close" });
  }
}

/** `{"error": message}` as the whole answer. */
export function answerError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/**
 * For an answer sent before the request body ended (call before answering, with Connection:
 * close): the rest of the body is read and dropped, and the connection closes once the client
 * has closed its side, or after LINGER_MS. Node would otherwise destroy the socket as soon as
 * the answer is written (its destroySoon), resetting a client that is still sending.
 */
export function lingerThenClose(req: IncomingMessage): void {
  const socket = req.socket as IncomingMessage["socket"] & { destroySoon?: () => void };
  if (socket.destroyed) return;
  socket.destroySoon = () => {
    if (socket.writable) socket.end(); // our side is done; keep reading until the client's is
  };
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // Whatever still listens (a body stream the route left unread) would keep every byte the
  // client sends from now on: only the dropping listener stays.
  req.removeAllListeners("data");
  req.on("data", () => {});
  req.resume();
}

/**
 * The body as a web stream for Remix, counted as it streams: past `limit` bytes the stream
 * fails with BodyTooLargeError and `onTooLarge` runs (once). Reads only as fast as the route
 * consumes (the request is paused while the stream's queue is full).
 */
export function limitedBody(
  req: IncomingMessage,
  limit: number,
  onTooLarge: () => void,
): ReadableStream<Uint8Array> {
  let size = 0;
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          if (done) return;
          size += chunk.length;
          if (size > limit) {
            done = true;
            req.pause();
            controller.error(new BodyTooLargeError(limit));
            onTooLarge();
            return;
          }
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => {
          if (done) return;
          done = true;
          controller.close();
        });
        req.once("close", () => {
          if (done) return;
          done = true;
          controller.error(new Error("the client closed the request before its body ended"));
        });
      },
      pull() {
        if (!done) req.resume();
      },
      cancel() {
        // The route stopped reading: leave the rest to the server (it closes the connection).
        done = true;
        req.pause();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** Reads and drops a body nobody wants; false as soon as it passes `limit` bytes. */
export function bodyWithin(req: IncomingMessage, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.pause();
        resolve(false);
      }
    };
    req.on("data", onData);
    req.once("end", () => resolve(true));
    req.once("close", () => resolve(size <= limit));
  });
}
