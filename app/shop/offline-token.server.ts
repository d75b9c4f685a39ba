/**
 * Expiring offline access tokens, refreshed once for all processes.
 *
 * Shopify's expiring offline token lasts an hour and comes with a refresh token that works
 * once: the refresh answers a new access token and a new refresh token, and the used one is
 * spent. @shopify/shopify-app-remix 6.0.1 refreshes by itself (`ensureOfflineTokenIsNotExpired`,
 * run by `unauthenticated.admin`, `authenticate.webhook`, `.flow`, `.public.appProxy` and
 * `.fulfillmentService` when the stored session expires within 5 minutes), but with no lock:
 * two processes (or two concurrent jobs) near expiry both spend the same refresh token, and
 * the second is refused. So the app refreshes first, here, behind one lock:
 *
 * - `fresh(shop)` is the offline session, refreshed when it expires within REFRESH_MARGIN_MS
 *   (10 minutes: before the library's own 5-minute threshold, so the library never refreshes).
 *   The session storage given to the library calls it on every offline-session load, so every
 *   library path gets a fresh session.
 * - The refresh runs in a transaction holding `pg_advisory_xact_lock(class, hashtext(shop))`:
 *   one refresh per shop at a time across every process on the database. Inside the lock the
 *   session row is read again; if another process refreshed meanwhile, its session is used and
 *   nothing is spent. Inside one process, concurrent callers share one promise, so they do not
 *   even queue on the lock (on the embedded database's single connection, a second waiter
 *   would otherwise wait for the connection the first one holds).
 * - Everything inside the transaction uses its own client (`tx`), never the global one, so the
 *   embedded database's single connection cannot deadlock. The other way round holds too:
 *   never load a gateway inside another transaction (on the embedded database the refresh
 *   would wait for the one connection that transaction holds, until maxWait).
 * - `afterRejected(shop, token)`: Shopify answered 401 for `token` (expired early, clock skew,
 *   or revoked). If the stored token is still that one, refresh (same lock); if the refresh is
 *   refused, or there is no refresh token, Shopify no longer accepts the app: the shop is
 *   marked (`Shop.authProblem`, which the merchant sees), its offline session is deleted (so
 *   the next visit to the app makes a new token exchange), and ShopReauthRequiredError is
 *   thrown. Background jobs wait on that error instead of failing; the next install (the
 *   `afterAuth` hook) clears the mark and wakes them (app/shops/shops.server.ts).
 *
 * Tokens are stored encrypted (./session-crypto.server.ts): rows read here are opened at once,
 * and the refreshed tokens are sealed before they are written.
 *
 * No token ever appears in a log line or an error message.
 */
import type { PrismaClient, Session as SessionRow } from "@prisma/client";
import { Session } from "@shopify/shopify-api";
import { ShopAuthError, ShopUnavailableError } from "./errors";
import { openSessionRow, sealSessionTokens } from "./session-crypto.server";

/** Refresh this long before expiry (the library's own threshold is 5 minutes). */
export const REFRESH_MARGIN_MS = 10 * 60_000;

/** How long a job waits before looking again at a shop that must reconnect. */
export const REAUTH_WAIT_MS = 60 * 60_000;

export const REAUTH_MESSAGE =
  "Shopify no longer accepts the app's access for this shop: open the app in Shopify admin to reconnect.";
/** The gateway's error text when a 401 could not be cured by a refresh. */
export const REJECTED_MESSAGE = `the stored access token was rejected (401) and could not be renewed. ${REAUTH_MESSAGE}`;
export const UNINSTALLED_MESSAGE =
  "The app is uninstalled from this shop: install it again in Shopify admin to resume.";

/** First half of the advisory lock key: "offline token refresh". */
const LOCK_CLASS = 0x5f0f;

/**
 * Shopify no longer accepts the app's access to the shop (revoked or uninstalled). Retrying
 * cannot help until the merchant reconnects: a job that meets it waits (`waitMs`), it does not
 * fail.
 */
export class ShopReauthRequiredError extends ShopAuthError {
  override name = "ShopReauthRequiredError";
  readonly waitMs = REAUTH_WAIT_MS;
  constructor(shop: string, operation: string, message = REAUTH_MESSAGE) {
    super("AUTH", { shop, operation, message, status: 401 });
  }
}

/** Exchanges a refresh token for a new offline session (the library's `auth.refreshToken`). */
export type RefreshFn = (shop: string, refreshToken: string) => Promise<Session>;

export interface OfflineTokensDeps {
  db: PrismaClient;
  refresh: RefreshFn;
  /** Loads a session with the library's storage (the fast path, no lock). */
  load: (id: string) => Promise<Session | undefined>;
  /** Told after a locked refresh, whatever came of it: what `load` kept of the session is stale. */
  changed?: (id: string) => void;
  now?: () => number;
  log?: (level: "info" | "warn" | "error", msg: string, data?: object) => void;
  marginMs?: number;
}

export interface OfflineTokens {
  /** The shop's offline session, refreshed first if it expires soon; undefined if none. */
  fresh(shop: string): Promise<Session | undefined>;
  /**
   * Shopify rejected `token` (401): the renewed session, or null once the shop is marked as
   * needing the merchant to reconnect.
   */
  afterRejected(shop: string, token: string | undefined): Promise<Session | null>;
  /** Marks the shop as needing the merchant to reconnect and forgets its dead tokens. */
  markReauthRequired(shop: string, message?: string): Promise<void>;
  /** Whether the session expires within the margin (and so will be refreshed on next use). */
  expiresSoon(session: Pick<Session, "expires">): boolean;
}

export const offlineSessionId = (shop: string) => `offline_${shop}`;

/** A session row as the library's Session (offline sessions only). */
function toSession(row: SessionRow): Session {
  return new Session({
    id: row.id,
    shop: row.shop,
    state: row.state,
    isOnline: row.isOnline,
    scope: row.scope ?? undefined,
    expires: row.expires ?? undefined,
    accessToken: row.accessToken,
    refreshToken: row.refreshToken ?? undefined,
    refreshTokenExpires: row.refreshTokenExpires ?? undefined,
  });
}

/** Shopify refused the refresh token itself (spent, revoked, expired): not a transient failure. */
export function isRefreshRefused(error: unknown): boolean {
  const r = (error as { response?: { code?: unknown; body?: unknown } } | null)?.response;
  const body = r?.body as { error?: unknown } | undefined;
  return (
    (r?.code === 400 || r?.code === 401) &&
    (body?.error === "invalid_grant" || body?.error === "invalid_subject_token")
  );
}

type Outcome =
  | { kind: "session"; session: Session; refreshed: boolean }
  | { kind: "none" }
  | { kind: "refused" };

/** What the token functions share: the dependencies, the clock, and when a session needs a refresh. */
interface TokenCtx {
  deps: OfflineTokensDeps;
  now: () => number;
  needsRefresh: (
    s: { accessToken?: string | null; expires?: Date | null; refreshToken?: string | null },
    rejected: string | undefined,
  ) => boolean;
}

type Tx = Pick<PrismaClient, "shop" | "session">;

/** The shop must reconnect: said on the shop, and its offline session removed. */
async function markIn(c: TokenCtx, tx: Tx, shop: string, message: string) {
  await tx.shop.upsert({
    where: { domain: shop },
    create: { domain: shop, authProblem: message, authProblemAt: new Date(c.now()) },
    update: { authProblem: message, authProblemAt: new Date(c.now()) },
  });
  await tx.session.deleteMany({ where: { shop, isOnline: false } });
}

/** The locked refresh: at most one per shop at a time, across processes. */
async function refreshLocked(
  c: TokenCtx,
  shop: string,
  rejected: string | undefined,
): Promise<Outcome> {
  return c.deps.db.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS}::int, hashtext(${shop}))`;
      const stored = await tx.session.findUnique({ where: { id: offlineSessionId(shop) } });
      if (!stored) return { kind: "none" } as const;
      const row = openSessionRow(stored);
      if (!c.needsRefresh(row, rejected)) {
        // Another process refreshed while this one waited for the lock.
        return { kind: "session", session: toSession(row), refreshed: false } as const;
      }
      if (!row.refreshToken) {
        // A token that does not expire was rejected: revoked. Nothing to refresh with.
        if (rejected !== undefined) {
          await markIn(c, tx, shop, REAUTH_MESSAGE);
          return { kind: "refused" } as const;
        }
        return { kind: "session", session: toSession(row), refreshed: false } as const;
      }
      let renewed: Session;
      try {
        renewed = await c.deps.refresh(shop, row.refreshToken);
      } catch (error) {
        if (isRefreshRefused(error)) return refused(c, tx, shop, row, rejected);
        throw unavailable(shop, error);
      }
      await tx.session.update({
        where: { id: row.id },
        data: sealSessionTokens({
          accessToken: renewed.accessToken ?? "",
          expires: renewed.expires ?? null,
          scope: renewed.scope ?? row.scope,
          refreshToken: renewed.refreshToken ?? null,
          refreshTokenExpires: renewed.refreshTokenExpires ?? null,
        }),
      });
      const fresh = openSessionRow(await tx.session.findUniqueOrThrow({ where: { id: row.id } }));
      return { kind: "session", session: toSession(fresh), refreshed: true } as const;
    },
    // The refresh is one HTTP round trip; waiting for another process's refresh is allowed
    // as long (maxWait is the wait for a connection, timeout the whole transaction).
    { maxWait: 30_000, timeout: 30_000 },
  );
}

/** Shopify refused the refresh token. */
async function refused(
  c: TokenCtx,
  tx: Tx,
  shop: string,
  row: SessionRow,
  rejected: string | undefined,
): Promise<Outcome> {
  // Spent by someone outside this lock (an older version of the app during a deploy)
  // who stored its result meanwhile: use theirs rather than give up.
  const latestRow = await tx.session.findUnique({ where: { id: row.id } });
  const latest = latestRow && openSessionRow(latestRow);
  if (latest && latest.refreshToken !== row.refreshToken && !c.needsRefresh(latest, rejected))
    return { kind: "session", session: toSession(latest), refreshed: false } as const;
  await markIn(c, tx, shop, REAUTH_MESSAGE);
  return { kind: "refused" } as const;
}

/** The refresh failed for a reason that may pass (a 5xx, the network): tried again later. */
function unavailable(shop: string, error: unknown) {
  const status = (error as { response?: { code?: unknown } })?.response?.code;
  return new ShopUnavailableError("UNAVAILABLE", {
    shop,
    operation: "refreshOfflineToken",
    status: typeof status === "number" ? status : undefined,
    message: `could not refresh the offline access token (${typeof status === "number" ? `HTTP ${status}` : "network error"}); it will be tried again`,
  });
}

export function createOfflineTokens(deps: OfflineTokensDeps): OfflineTokens {
  const now = deps.now ?? Date.now;
  const margin = deps.marginMs ?? REFRESH_MARGIN_MS;
  const log = deps.log ?? (() => {});
  const inflight = new Map<string, Promise<Outcome>>();

  const expiresSoon = (s: { expires?: Date | null }) =>
    !!s.expires && s.expires.getTime() - now() < margin;
  const needsRefresh: TokenCtx["needsRefresh"] = (s, rejected) =>
    (rejected !== undefined && s.accessToken === rejected) || (!!s.refreshToken && expiresSoon(s));
  const c: TokenCtx = { deps, now, needsRefresh };

  /** One locked refresh per shop per process at a time; later callers share it. */
  function sharedRefresh(shop: string, rejected: string | undefined): Promise<Outcome> {
    const key = `${shop}\u0000${rejected ?? ""}`;
    let p = inflight.get(key);
    if (!p) {
      p = refreshLocked(c, shop, rejected)
        .then((o) => {
          if (o.kind === "session" && o.refreshed)
            log("info", "offline access token refreshed", { shop });
          if (o.kind === "refused")
            log("warn", "Shopify refused the offline token refresh: the shop must reconnect", {
              shop,
            });
          return o;
        })
        .finally(() => {
          inflight.delete(key);
          deps.changed?.(offlineSessionId(shop));
        });
      inflight.set(key, p);
    }
    return p;
  }

  return {
    expiresSoon,
    async fresh(shop) {
      const session = await deps.load(offlineSessionId(shop));
      if (!session || !needsRefresh(session, undefined)) return session;
      const o = await sharedRefresh(shop, undefined);
      return o.kind === "session" ? o.session : undefined;
    },
    async afterRejected(shop, token) {
      const o = await sharedRefresh(shop, token ?? "");
      if (o.kind === "session" && o.session.accessToken !== token) return o.session;
      if (o.kind === "session") await this.markReauthRequired(shop);
      return null;
    },
    async markReauthRequired(shop, message = REAUTH_MESSAGE) {
      await deps.db.$transaction((tx) => markIn(c, tx, shop, message));
      log("warn", "the shop must reconnect the app", { shop });
    },
  };
}
