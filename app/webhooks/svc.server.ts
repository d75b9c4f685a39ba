/**
 * The fulfilment service's webhooks in: `POST /webhooks/svc/<secret>`, where the secret is a
 * random 32 bytes per connected account. The service gives a reply 3 seconds and pauses all
 * deliveries past 50% failures, so this answers at once and leaves the work to the queue. The
 * payload is only a hint: handlers fetch the order from the service before writing to a shop.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { prisma } from "../db.server";
import { logger } from "../logger.server";
import { recordEvent } from "./intake.server";

export const MAX_BODY_BYTES = 256 * 1024;

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

/** Reads at most `limit` bytes of the body; null when it is longer. */
async function readLimited(request: Request, limit: number): Promise<Buffer | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return null;
  if (!request.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/** Base64(HMAC-SHA256(key = openId, raw body)), compared in constant time. */
export function validSign(raw: Buffer, sign: string, openId: string): boolean {
  const expected = createHmac("sha256", openId).update(raw).digest();
  const given = Buffer.from(sign, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function receiveSvcWebhook(request: Request, secret: string): Promise<Response> {
  if (request.method !== "POST") return reply(405, { code: 405, result: "method not allowed" });
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(secret))
    return reply(404, { code: 404, result: "not found" });
  const account = await prisma.svcAccount.findUnique({
    where: { webhookSecret: secret },
    select: { id: true, shopDomain: true, openId: true },
  });
  if (!account?.shopDomain) return reply(404, { code: 404, result: "not found" });

  const raw = await readLimited(request, MAX_BODY_BYTES);
  if (raw === null) return reply(413, { code: 413, result: "body too large" });
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return reply(400, { code: 400, result: "body is not JSON" });
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) return reply(400, { code: 400, result: "not a service event" });

  const sign = request.headers.get("sign");
  if (sign !== null) {
    if (account.openId && !validSign(raw, sign, account.openId)) {
      return reply(401, { code: 401, result: "bad signature" });
    }
    if (!account.openId) {
      logger.warn({ accountId: account.id }, "service webhook sign not checked: open id unknown");
    }
  }

  const event = parsed.data;
  const { duplicate } = await recordEvent({
    source: "svc",
    shopDomain: account.shopDomain,
    topic: event.type,
    eventKey: `${account.id}:${event.messageId}`,
    payload: json as object,
  });
  if (duplicate) logger.debug({ messageId: event.messageId }, "duplicate service webhook");
  return reply(200, SUCCESS);
}
