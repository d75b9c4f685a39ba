/**
 * Shopify access and refresh tokens at rest: the `accessToken` and `refreshToken` columns of
 * every Session row (offline and online) hold ciphertexts (app/crypto.server.ts). Every path
 * that writes or reads them goes through `sealToken` and `openToken`: the session storage given
 * to the library (`encryptingSessionStorage`), the locked offline-token refresh, the secrets
 * migration and the sandbox seed.
 *
 * A row written before tokens were encrypted holds the token in clear. It still loads: a stored
 * value is a ciphertext only if it has the exact shape of one (`isEncryptedSecret`), which a
 * Shopify token (a `shp…_` prefix and hex digits, or 32 hex digits: no dots, no `v1.`/`v2.`
 * prefix) never has. The secrets migration encrypts such rows.
 */
import type { Session } from "@shopify/shopify-api";
import { decryptSecret, encryptSecret, isEncryptedSecret, type SecretKeys } from "../crypto.server";

/** A token as stored: encrypted; an empty token (none) stays empty. */
export function sealToken(plain: string, keys?: SecretKeys): string {
  if (plain === "") return "";
  // A ciphertext here is a bug upstream (it would be stored doubly encrypted and never work).
  if (isEncryptedSecret(plain))
    throw new Error("Refusing to encrypt a token that is already encrypted");
  return encryptSecret(plain, keys);
}

/** A stored token in clear: decrypted, or as it is when it predates encryption (legacy row). */
export function openToken(stored: string, keys?: SecretKeys): string {
  return isEncryptedSecret(stored) ? decryptSecret(stored, keys) : stored;
}

/** Whether a stored token is still in clear (a row from before encryption). */
export function isClearToken(stored: string): boolean {
  return stored !== "" && !isEncryptedSecret(stored);
}

type TokenColumns = { accessToken: string; refreshToken?: string | null };

/** A Session row (or its update) with its tokens sealed. */
export function sealSessionTokens<T extends Partial<TokenColumns>>(data: T): T {
  return {
    ...data,
    ...(data.accessToken !== undefined ? { accessToken: sealToken(data.accessToken) } : {}),
    ...(data.refreshToken ? { refreshToken: sealToken(data.refreshToken) } : {}),
  };
}

/** A Session row as read, with its tokens in clear. */
export function openSessionRow<T extends TokenColumns>(row: T): T {
  return {
    ...row,
    accessToken: openToken(row.accessToken),
    ...(row.refreshToken ? { refreshToken: openToken(row.refreshToken) } : {}),
  };
}

function openSession(session: Session): Session {
  if (session.accessToken) session.accessToken = openToken(session.accessToken);
  if (session.refreshToken) session.refreshToken = openToken(session.refreshToken);
  return session;
}

/** The library's session storage interface (as PrismaSessionStorage implements it). */
export interface SessionStore {
  storeSession(session: Session): Promise<boolean>;
  loadSession(id: string): Promise<Session | undefined>;
  deleteSession(id: string): Promise<boolean>;
  deleteSessions(ids: string[]): Promise<boolean>;
  findSessionsByShop(shop: string): Promise<Session[]>;
}

/**
 * Wraps a storage that stores what the Session object holds (PrismaSessionStorage): it gets a
 * copy whose tokens are sealed, and what it loads is opened. The caller's Session is unchanged.
 */
export function encryptingSessionStorage(inner: SessionStore): SessionStore {
  return {
    storeSession: (session) => {
      const copy = Object.assign(
        Object.create(Object.getPrototypeOf(session) as object) as Session,
        session,
      );
      if (session.accessToken) copy.accessToken = sealToken(session.accessToken);
      if (session.refreshToken) copy.refreshToken = sealToken(session.refreshToken);
      return inner.storeSession(copy);
    },
    loadSession: async (id) => {
      const s = await inner.loadSession(id);
      return s && openSession(s);
    },
    deleteSession: (id) => inner.deleteSession(id),
    deleteSessions: (ids) => inner.deleteSessions(ids),
    findSessionsByShop: async (shop) => (await inner.findSessionsByShop(shop)).map(openSession),
  };
}
