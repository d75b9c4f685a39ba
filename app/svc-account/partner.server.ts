/**
 * The app operator's own account at the service (the "independent merchant" of Part 1 §6),
 * used for the authorization-code flow of affiliated merchants: it asks for the authorization
 * page (getAuthorizeUrl) and exchanges the codes (exchangeAccessToken). Its API key comes from
 * SVC_PARTNER_API_KEY and is stored encrypted like any other account's.
 */
import { Prisma, type PrismaClient } from "@prisma/client";
import { config } from "../config.server";
import { encryptSecret } from "../crypto.server";
import { svcClientForAccount } from "../svc/index.server";
import type { AuthFlowDeps } from "./authorize.server";

export const PARTNER_AUTH_METHOD = "partner";

/** Whether the flow is configured (a base URL and the operator's API key), without the database. */
export function partnerAuthConfigured(): boolean {
  return Boolean(config.SVC_BASE_URL && config.SVC_PARTNER_API_KEY);
}

/** The auth flow's dependencies, or null when the flow is not configured. */
export async function partnerAuthFlow(
  prisma: PrismaClient,
): Promise<(AuthFlowDeps & { baseUrl: string }) | null> {
  const baseUrl = config.SVC_BASE_URL;
  const apiKey = config.SVC_PARTNER_API_KEY;
  if (!baseUrl || !apiKey) return null;
  const account = await partnerAccount(prisma, baseUrl, apiKey);
  const client = await svcClientForAccount(account.id, { prisma });
  return { prisma, partnerAuth: client.auth, baseUrl };
}

/**
 * The partner account of a base URL, created on first use. `partnerKey` (the base URL) is
 * unique, so when concurrent first uses all find none and all create one, one insert wins and
 * the others meet the unique violation (P2002) and read the winner's row: one account, always.
 */
export async function partnerAccount(prisma: PrismaClient, baseUrl: string, apiKey: string) {
  const existing = await prisma.svcAccount.findUnique({ where: { partnerKey: baseUrl } });
  if (existing) return existing;
  try {
    return await prisma.svcAccount.create({
      data: {
        authMethod: PARTNER_AUTH_METHOD,
        baseUrl,
        partnerKey: baseUrl,
        apiKeyEnc: encryptSecret(apiKey),
      },
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      return prisma.svcAccount.findUniqueOrThrow({ where: { partnerKey: baseUrl } });
    }
    throw error;
  }
}
