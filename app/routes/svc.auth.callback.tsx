import { json, type ActionFunctionArgs } from "@remix-run/node";
import { prisma } from "../db.server";
import { logger } from "../logger.server";
import { receiveAuthorizationCode } from "../svc/index.server";
import { partnerAuthFlow } from "../svc-partner.server";

const MAX_BODY = 8 * 1024;

/**
 * The authorization-code receiver of Part 1 §6.3: the service POSTs `{code, state}` once a
 * merchant has logged in. The `state` is bound to the shop that started the flow, single use and
 * expiring; the code is exchanged and the tokens stored encrypted. The reply is
 * `{result, message}` with result "0" on success.
 */
export const action = async ({ request }: ActionFunctionArgs) => {
  const deps = await partnerAuthFlow(prisma);
  if (!deps) return json({ result: "1", message: "authorization flow not configured" }, 404);
  const raw = await request.text();
  if (raw.length > MAX_BODY) return json({ result: "1", message: "body too large" }, 413);
  let body: unknown;
  try {
    const type = request.headers.get("content-type") ?? "";
    body = type.includes("application/x-www-form-urlencoded")
      ? Object.fromEntries(new URLSearchParams(raw))
      : JSON.parse(raw);
  } catch {
    return json({ result: "1", message: "body is not JSON" }, 400);
  }
  const reply = await receiveAuthorizationCode(deps, body);
  if (reply.result === "0") logger.info({ shop: reply.shopDomain }, "service account connected");
  return json({ result: reply.result, message: reply.message }, reply.result === "0" ? 200 : 400);
};

export const loader = () => new Response("Not found", { status: 404 });
