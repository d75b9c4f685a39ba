import { json, type ActionFunctionArgs } from "@remix-run/node";
import { prisma } from "../db.server";
import { logger } from "../logger.server";
import { afterAuthorization } from "../svc-account/authorized.server";
import { receiveAuthorizationCode } from "../svc-account/authorize.server";
import { partnerAuthConfigured, partnerAuthFlow } from "../svc-account/partner.server";
import { BodyLimitError, parseJsonBounded, readTextLimited } from "../webhooks/json-limits.server";

const MAX_BODY = 8 * 1024;

const reply = (result: string, message: string, status: number, headers?: HeadersInit) =>
  json({ result, message }, { status, headers });

/**
 * The authorization-code receiver of Part 1 §6.3: the service POSTs `{code, state}` once a
 * merchant has logged in. The `state` is bound to the shop that started the flow, single use and
 * expiring; the code is exchanged and the tokens stored encrypted. The reply is
 * `{result, message}` with result "0" on success.
 *
 * Anyone can post here, so the body is read with a limit (8 KB): a larger declared length is
 * refused before reading, and a longer body as soon as the limit is passed.
 */
export const action = async ({ request }: ActionFunctionArgs) => {
  if (!partnerAuthConfigured()) return reply("1", "authorization flow not configured", 404);
  let body: unknown;
  try {
    const raw = await readTextLimited(request, MAX_BODY);
    const type = request.headers.get("content-type") ?? "";
    body = type.includes("application/x-www-form-urlencoded")
      ? Object.fromEntries(new URLSearchParams(raw))
      : parseJsonBounded(raw, { maxDepth: 8 });
  } catch (error) {
    if (!(error instanceof BodyLimitError)) throw error;
    if (error.kind === "too_large")
      return reply("1", "body too large", 413, { Connection: "close" });
    return reply("1", error.kind === "too_deep" ? error.message : "body is not JSON", 400);
  }
  const deps = await partnerAuthFlow(prisma);
  if (!deps) return reply("1", "authorization flow not configured", 404);
  const result = await receiveAuthorizationCode(deps, body);
  if (result.result === "0") {
    logger.info({ shop: result.shopDomain }, "service account connected");
    if (result.shopDomain && result.accountId) {
      // As after an API-key connect: orders follow, held ones go on, webhooks registered now.
      await afterAuthorization(prisma, {
        shop: result.shopDomain,
        accountId: result.accountId,
        previousOpenId: result.previousOpenId,
      });
    }
  }
  return reply(result.result, result.message, result.result === "0" ? 200 : 400);
};

export const loader = () => new Response("Not found", { status: 404 });
