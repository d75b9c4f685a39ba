/**
 * "Connect with API key" through the guarded token path. The service allows getAccessToken once
 * per 5 minutes per account (and answers 1600200 past it), so:
 *
 * - the key the shop is already connected with: the token manager's path (the stored token, a
 *   refresh, or at most one getAccessToken per 5 minutes): ten clicks make at most one call;
 * - a key another shop connected with less than 5 minutes ago (the same service account, whose
 *   tokens the service would hand out again unchanged within 24 hours): that shop's tokens are
 *   shared, no call;
 * - a key new to the shop: one getAccessToken, claimed on the shop's row first so concurrent
 *   clicks make one call. If the shop got a token (with any key) less than 5 minutes ago, a
 *   different key is refused with the time left: the app cannot know whether the new key is
 *   the same service account before asking, and asking would then break the limit. A key the
 *   service refuses gives the slot back (nothing was issued), so a typo can be fixed at once.
 */
import type { PrismaClient, SvcAccount } from "@prisma/client";
import { decryptSecret, encryptSecret } from "../crypto.server";
import { type TokenRecord, tokenColumns } from "../svc/auth.server";
import { svcClientForAccount } from "../svc/client.server";
import {
  SvcAuthError,
  SvcNetworkError,
  SvcRateLimitError,
  SvcTokenCooldownError,
  SvcValidationError,
} from "../svc/errors";
import { TOKEN_REQUEST_INTERVAL_MS } from "../svc/tokens.server";
import { startImport } from "./import-connections.server";
import { recheckHeld } from "../orders/recheck.server";
import { followAccount } from "./follow.server";

/** A refusal the merchant can act on; `field` names the form field it belongs to. */
export class ConnectError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "ConnectError";
  }
}

export interface ConnectInput {
  shop: string;
  baseUrl: string;
  apiKey: string;
  /** getAccessToken at the service, without an account (default: a plain client). */
  tryKey: (apiKey: string) => Promise<TokenRecord>;
  now?: () => number;
}

const REFUSED = "The service refused this API key";

function keyOf(account: Pick<SvcAccount, "apiKeyEnc">): string | null {
  if (!account.apiKeyEnc) return null;
  try {
    return decryptSecret(account.apiKeyEnc);
  } catch {
    return null;
  }
}

function cooldown(lastMs: number, nowMs: number, what: string): ConnectError {
  const minutes = Math.max(1, Math.ceil((lastMs + TOKEN_REQUEST_INTERVAL_MS - nowMs) / 60_000));
  return new ConnectError(
    `${what} less than 5 minutes ago, and the service allows one token request per 5 minutes: ` +
      `try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    "apiKey",
  );
}

/** Connects the shop's account with the key; returns the stored account (tokens, open id). */
export async function connectApiKey(db: PrismaClient, input: ConnectInput): Promise<SvcAccount> {
  const now = input.now ?? Date.now;
  const before = await db.svcAccount.findUnique({
    where: { shopDomain: input.shop },
    select: { openId: true },
  });
  const account = await connectOrReuse(db, input, now);
  // The orders of this service account come back to it; those of another one are flagged.
  await followAccount(db, {
    shop: input.shop,
    accountId: account.id,
    previousOpenId: before?.openId,
  });
  // Orders held for want of an account go on at once.
  await recheckHeld(db, input.shop, ["no_account"], `connected:${account.id}:${now()}`);
  // Connections the merchant made in the service's console are read at once.
  await startImport(db, input.shop, account.id);
  return account;
}

async function connectOrReuse(
  db: PrismaClient,
  input: ConnectInput,
  now: () => number,
): Promise<SvcAccount> {
  const existing = await db.svcAccount.findUnique({ where: { shopDomain: input.shop } });
  if (existing && existing.baseUrl === input.baseUrl && keyOf(existing) === input.apiKey) {
    return sameKey(db, existing, now);
  }
  const shared = await shareSiblingTokens(db, input, existing, now);
  if (shared) return shared;
  return newKey(db, input, existing, now);
}

async function sameKey(db: PrismaClient, account: SvcAccount, now: () => number) {
  const client = await svcClientForAccount(account.id, {
    prisma: db,
    timeoutMs: 15_000,
    tokens: { waitForOtherMs: 0 },
  });
  try {
    await client.tokens!.getToken();
  } catch (error) {
    if (error instanceof SvcTokenCooldownError) {
      const row = await db.svcAccount.findUniqueOrThrow({ where: { id: account.id } });
      throw cooldown(row.lastTokenRequestAt?.getTime() ?? now(), now(), "A token was requested");
    }
    if (error instanceof SvcAuthError) throw new ConnectError(REFUSED, "apiKey");
    throw error;
  }
  return db.svcAccount.findUniqueOrThrow({ where: { id: account.id } });
}

/** Another shop's account with this key that asked for its token less than 5 minutes ago. */
async function shareSiblingTokens(
  db: PrismaClient,
  input: ConnectInput,
  existing: SvcAccount | null,
  now: () => number,
): Promise<SvcAccount | null> {
  const since = new Date(now() - TOKEN_REQUEST_INTERVAL_MS);
  const recent = await db.svcAccount.findMany({
    where: {
      baseUrl: input.baseUrl,
      shopDomain: { not: null },
      apiKeyEnc: { not: null },
      lastTokenRequestAt: { gt: since },
      ...(existing ? { id: { not: existing.id } } : {}),
    },
  });
  const sibling = recent.find((a) => keyOf(a) === input.apiKey);
  if (!sibling) return null;
  const valid =
    sibling.accessTokenEnc &&
    sibling.accessTokenExpiresAt &&
    sibling.accessTokenExpiresAt.getTime() > now();
  if (!valid) {
    throw cooldown(
      sibling.lastTokenRequestAt!.getTime(),
      now(),
      "This key was used by another shop",
    );
  }
  const data = {
    baseUrl: input.baseUrl,
    authMethod: "apiKey",
    apiKeyEnc: encryptSecret(input.apiKey),
    accessTokenEnc: sibling.accessTokenEnc,
    accessTokenExpiresAt: sibling.accessTokenExpiresAt,
    refreshTokenEnc: sibling.refreshTokenEnc,
    refreshTokenExpiresAt: sibling.refreshTokenExpiresAt,
    lastTokenRequestAt: sibling.lastTokenRequestAt,
    openId: sibling.openId,
    ...forgetSubscriptionIfMoved(existing, sibling.openId),
  };
  return db.svcAccount.upsert({
    where: { shopDomain: input.shop },
    create: { shopDomain: input.shop, ...data },
    update: data,
  });
}

/** A shop moving to another service account leaves its old callback address behind. */
function forgetSubscriptionIfMoved(existing: SvcAccount | null, openId: string | null) {
  if (!existing?.openId || existing.openId === openId) return {};
  return { webhookSecretEnc: null, webhookSecretHash: null, webhookRegisteredAt: null };
}

/** The shop's row, made if missing; concurrent clicks may race to make it (one wins). */
async function placeholder(db: PrismaClient, input: ConnectInput): Promise<SvcAccount> {
  try {
    return await db.svcAccount.upsert({
      where: { shopDomain: input.shop },
      create: { shopDomain: input.shop, baseUrl: input.baseUrl, authMethod: "apiKey" },
      update: {},
    });
  } catch (error) {
    if ((error as { code?: string }).code !== "P2002") throw error;
    return db.svcAccount.findUniqueOrThrow({ where: { shopDomain: input.shop } });
  }
}

async function newKey(
  db: PrismaClient,
  input: ConnectInput,
  existing: SvcAccount | null,
  now: () => number,
): Promise<SvcAccount> {
  // A row to claim the request slot on (no credential yet: it does not count as connected).
  const row = existing ?? (await placeholder(db, input));
  const at = new Date(now());
  const claimed = await db.svcAccount.updateMany({
    where: {
      id: row.id,
      OR: [
        { lastTokenRequestAt: null },
        { lastTokenRequestAt: { lte: new Date(at.getTime() - TOKEN_REQUEST_INTERVAL_MS) } },
      ],
    },
    data: { lastTokenRequestAt: at },
  });
  if (claimed.count !== 1) {
    const last = await db.svcAccount.findUniqueOrThrow({ where: { id: row.id } });
    throw cooldown(
      last.lastTokenRequestAt?.getTime() ?? at.getTime(),
      at.getTime(),
      "This shop requested a service token",
    );
  }
  // Nothing was issued: the slot goes back, and a row made only to hold it goes away.
  const giveBack = () =>
    existing
      ? db.svcAccount.updateMany({
          where: { id: row.id, lastTokenRequestAt: at },
          data: { lastTokenRequestAt: row.lastTokenRequestAt },
        })
      : db.svcAccount.deleteMany({
          where: { id: row.id, apiKeyEnc: null, accessTokenEnc: null, refreshTokenEnc: null },
        });
  let rec: TokenRecord;
  try {
    rec = await input.tryKey(input.apiKey);
  } catch (error) {
    if (error instanceof SvcRateLimitError) {
      throw cooldown(at.getTime(), at.getTime(), "The service says a token was requested");
    }
    if (error instanceof SvcAuthError || error instanceof SvcValidationError) {
      await giveBack(); // nothing was issued
      throw new ConnectError(REFUSED, "apiKey");
    }
    if (error instanceof SvcNetworkError && !error.outcomeUnknown) await giveBack();
    throw error;
  }
  return db.svcAccount.update({
    where: { id: row.id },
    data: {
      baseUrl: input.baseUrl,
      authMethod: "apiKey",
      apiKeyEnc: encryptSecret(input.apiKey),
      ...tokenColumns(rec, now()),
      openId: rec.openId ?? null,
      ...forgetSubscriptionIfMoved(existing, rec.openId ?? null),
    },
  });
}
