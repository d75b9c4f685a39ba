/**
 * The fulfilment service's webhooks in: `POST /webhooks/svc/<secret>`, where the secret is a
 * random 32 bytes per service account (shared by the shops connected to it), found by its
 * SHA-256 hash. The service gives a reply 3 seconds and pauses all deliveries past 50%
 * failures, so this answers at once and leaves the work to the queue. The payload is only a
 * hint: handlers fetch the order from the service before writing to a shop.
 *
 * Refused, storing nothing: an unknown secret (404), a body over 256 KB (413), JSON that is not
 * an event or nests deeper than MAX_JSON_DEPTH (400), a `sign` header that is present but empty,
 * malformed or wrong (401). An event type nothing handles is stored, marked ignored, no job.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { prisma } from "../db.server";
import { logger } from "../logger.server";
import { accountsByWebhookSecret } from "../svc/accounts.server";
import { BodyLimitError, jsonDepthExceeds, readBytesLimited } from "./json-limits.server";
import { recordEvent, recordIgnoredEvent } from "../events/store.server";
import { routeSvcEvent } from "./svc-route.server";

export const MAX_BODY_BYTES = 256 * 1024;
/** The envelope is three levels deep; the service's params a few more. */
export const MAX_JSON_DEPTH = 32;

const SUCCESS = { code: 200, result: "success" } as const;

/** The envelope of DESIGN §8: `messageId`, `type`, `messageType`, `params`, sometimes `openId`. */
const envelope = z
  .object({
    messageId: z.union([z.string().min(1).max(200), z.number().int()]).transform(String),
    type: z.string().regex(/^[A-Z_]{2,40}$/),
    messageType: z.string().max(60).optional(),
    params: z.union([z.record(z.string(), z.unknown()), z.string(), z.array(z.unknown())]),
    openId: z.union([z.string(), z.number()]).optional(),
  })
  .passthrough();

function reply(status: number, body: object): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

/** Base64 of a 32-byte HMAC-SHA256: 44 characters, one padding sign. */
const SIGN_FORMAT = /^[A-Za-z0-9+/]{43}=$/;

/** Base64(HMAC-SHA256(key = openId, raw body)), compared in constant time. */
export function validSign(raw: Buffer, sign: string, openId: string): boolean {
  if (!SIGN_FORMAT.test(sign)) return false;
  const expected = createHmac("sha256", openId).update(raw).digest();
  // The format makes it 32 bytes, the length of the digest.
  return timingSafeEqual(Buffer.from(sign, "base64"), expected);
}

export async function receiveSvcWebhook(request: Request, secret: string): Promise<Response> {
  if (request.method !== "POST") return reply(405, { code: 405, result: "method not allowed" });
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(secret))
    return reply(404, { code: 404, result: "not found" });
  const accounts = await accountsByWebhookSecret(prisma, secret);
  if (accounts.length === 0) return reply(404, { code: 404, result: "not found" });

  let raw: Buffer;
  try {
    raw = await readBytesLimited(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyLimitError) return reply(413, { code: 413, result: "body too large" });
    throw error;
  }
  const text = raw.toString("utf8");
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    return reply(400, { code: 400, result: "body nests too deeply" });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return reply(400, { code: 400, result: "body is not JSON" });
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) return reply(400, { code: 400, result: "not a service event" });

  // A sign header that is there must verify: an empty or malformed one is not "no sign".
  // (Header values come without surrounding whitespace: Headers strips it.)
  const sign = request.headers.get("sign");
  if (sign !== null) {
    const openIds = [...new Set(accounts.flatMap((a) => (a.openId ? [a.openId] : [])))];
    if (!SIGN_FORMAT.test(sign)) {
      return reply(401, { code: 401, result: "bad signature" });
    }
    if (openIds.length > 0 && !openIds.some((o) => validSign(raw, sign, o))) {
      return reply(401, { code: 401, result: "bad signature" });
    }
    if (openIds.length === 0) {
      logger.warn(
        { svcAccountId: accounts[0]!.id },
        // Stryker disable next-line StringLiteral: message
        "service webhook sign not checked: open id unknown",
      );
    }
  }

  const event = parsed.data;
  const targets = await routeSvcEvent(prisma, accounts, event);
  for (const t of targets) {
    const incoming = {
      source: "svc" as const,
      shopDomain: t.account.shopDomain,
      topic: event.type,
      // Per account: two accounts' events with one messageId never dedupe against each other.
      eventKey: `${t.account.id}:${event.messageId}`,
      payload: json as object,
    };
    const { duplicate } = t.ignoredReason
      ? await recordIgnoredEvent(incoming, t.ignoredReason)
      : await recordEvent(incoming);
    // Stryker disable next-line StringLiteral: message
    if (duplicate) logger.debug({ messageId: event.messageId }, "duplicate service webhook");
    else if (t.ignoredReason && !t.routine) {
      logger.info(
        { svcAccountId: t.account.id, type: event.type, reason: t.ignoredReason },
        // Stryker disable next-line StringLiteral: message
        "service webhook stored, ignored",
      );
    }
  }
  return reply(200, SUCCESS);
}
