/**
 * The app operator's own account at the service (the "independent merchant" of Part 1 §6),
 * used for the authorization-code flow of affiliated merchants: it asks for the authorization
 * page (getAuthorizeUrl) and exchanges the codes (exchangeAccessToken). Its API key comes from
 * SVC_PARTNER_API_KEY and is stored encrypted like any other account's.
 */
import type { PrismaClient } from "@prisma/client";
import { config } from "./config.server";
import { encryptSecret } from "./crypto.server";
import { type AuthFlowDeps, svcClientForAccount } from "./svc/index.server";

export const PARTNER_AUTH_METHOD = "partner";

/** The auth flow's dependencies, or null when the flow is not configured. */
export async function partnerAuthFlow(
  prisma: PrismaClient,
): Promise<(AuthFlowDeps & { baseUrl: string }) | null> {
  const baseUrl = config.SVC_BASE_URL;
  const apiKey = config.SVC_PARTNER_API_KEY;
  if (!baseUrl || !apiKey) return null;
  let account = await prisma.svcAccount.findFirst({
    where: { authMethod: PARTNER_AUTH_METHOD, shopDomain: null, baseUrl },
  });
  account ??= await prisma.svcAccount.create({
    data: { authMethod: PARTNER_AUTH_METHOD, baseUrl, apiKeyEnc: encryptSecret(apiKey) },
  });
  const client = await svcClientForAccount(account.id, { prisma });
  return { prisma, partnerAuth: client.auth, baseUrl };
}
