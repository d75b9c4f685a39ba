/**
 * The shop simulator's token endpoint, `POST https://{shop}/admin/oauth/access_token`, and its
 * token store, as Shopify serves them to an embedded app:
 *
 * - token exchange (`grant_type=urn:ietf:params:oauth:grant-type:token-exchange`): an id_token
 *   (a JWT signed HS256 with the app's secret, as App Bridge hands it to the app) becomes an
 *   offline access token (with `expiring=1`: valid 1 hour, with a refresh token valid 90 days)
 *   or an online one (with `associated_user`);
 * - refresh (`grant_type=refresh_token`): a new access token and a new refresh token; the
 *   refresh token used is spent (a second use is refused with `invalid_grant`);
 * - `accessTokenStatus(domain, token)` is what the Admin API consults: an expired, revoked or
 *   unknown token gets 401.
 *
 * Knobs for tests: `mintIdToken`, `revokeTokens` (uninstall: every token of the shop dies),
 * `expireAccessToken` (the current access tokens expire now), a movable `clock`, lifetimes,
 * and counters of exchanges and refreshes. Tokens never appear in an error body.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
export const OFFLINE_TOKEN_TYPE = "urn:shopify:params:oauth:token-type:offline-access-token";
export const ONLINE_TOKEN_TYPE = "urn:shopify:params:oauth:token-type:online-access-token";

/** The Admin API's answer to a bad token (HTTP 401). */
export const INVALID_TOKEN_BODY = {
  errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
};

export type TokenStatus = "ok" | "expired" | "revoked" | "unknown";

interface AccessRec {
  domain: string;
  kind: "offline" | "online";
  /** Epoch ms (sim clock); null: never expires. */
  expiresAt: number | null;
  revoked: boolean;
  scope: string;
}

interface RefreshRec {
  domain: string;
  expiresAt: number;
  used: boolean;
  revoked: boolean;
}

export interface OAuthCounters {
  tokenExchanges: number;
  refreshes: number;
  /** Refresh requests answered with an error (spent, revoked, expired or unknown token). */
  refreshesRefused: number;
  /** Token exchanges answered with an error. */
  exchangesRefused: number;
}

export interface OAuthOptions {
  apiKey: string;
  apiSecret: string;
  /** Scopes granted on a shop (the `scope` of a token response). */
  scopesFor: (domain: string) => string;
  /** Whether the simulator knows the shop (unknown shops get 404 like any unknown host). */
  hasShop: (domain: string) => boolean;
  /** The shop's non-expiring token installed by other means (the simulator's seeded token). */
  legacyTokenOf?: (domain: string) => string | undefined;
  /** Seconds; Shopify's: 3600. */
  accessTokenTtlS?: number;
  /** Seconds; Shopify's: 90 days. */
  refreshTokenTtlS?: number;
  /** Seconds; online tokens last about a day. */
  onlineTokenTtlS?: number;
}

export interface OAuthSim {
  /** The simulator's clock (epoch ms). `advance` moves it forward without sleeping. */
  readonly clock: { now(): number; advance(ms: number): void };
  /** Lifetimes of tokens issued from now on (seconds). */
  setLifetimes(l: { accessTokenTtlS?: number; refreshTokenTtlS?: number }): void;
  /**
   * Makes every token request take this long (ms) before it is decided, so that concurrent
   * refreshes really overlap in tests.
   */
  setLatency(ms: number): void;
  /**
   * An id_token as Shopify's admin hands it to an embedded app (App Bridge's session token),
   * signed with the app's secret. `overrides` forge bad ones (expired, wrong audience, …).
   */
  mintIdToken(
    domain: string,
    opts?: {
      userId?: number;
      secret?: string;
      ttlS?: number;
      overrides?: Record<string, unknown>;
    },
  ): string;
  /** Uninstall or revocation: every access and refresh token of the shop stops working. */
  revokeTokens(domain: string): void;
  /** The shop's live expiring access tokens expire now (their refresh tokens stay valid). */
  expireAccessToken(domain: string): void;
  accessTokenStatus(domain: string, token: string | undefined): TokenStatus;
  counters(domain?: string): OAuthCounters;
  /** Answers `POST /admin/oauth/access_token` for `domain` (body: JSON or form-encoded). */
  handleTokenRequest(
    domain: string,
    rawBody: string,
    contentType: string | undefined,
  ): Promise<{ status: number; body: unknown }>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");

export function signJwtHs256(payload: Record<string, unknown>, secret: string): string {
  const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64url(JSON.stringify(payload));
  const sig = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${sig}`;
}

/** Verifies an HS256 JWT; returns its payload, or why it is not acceptable. */
function verifyJwt(
  token: string,
  secret: string,
): { ok: true; payload: Record<string, unknown> } | { ok: false; why: string } {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, why: "malformed" };
  const [head, body, sig] = parts as [string, string, string];
  let header: { alg?: unknown };
  let payload: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(head, "base64url").toString("utf8"));
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return { ok: false, why: "malformed" };
  }
  if (header.alg !== "HS256") return { ok: false, why: "unsupported algorithm" };
  const want = createHmac("sha256", secret).update(`${head}.${body}`).digest();
  const got = Buffer.from(sig, "base64url");
  if (got.length !== want.length || !timingSafeEqual(got, want))
    return { ok: false, why: "bad signature" };
  return { ok: true, payload };
}

const secretsEqual = (a: unknown, b: string) =>
  typeof a === "string" &&
  a.length === b.length &&
  timingSafeEqual(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

export function createOAuthSim(opts: OAuthOptions): OAuthSim {
  let offsetMs = 0;
  const clock = {
    now: () => Date.now() + offsetMs,
    advance: (ms: number) => {
      offsetMs += ms;
    },
  };
  let latencyMs = 0;
  let accessTtlS = opts.accessTokenTtlS ?? 3600;
  let refreshTtlS = opts.refreshTokenTtlS ?? 90 * 86400;
  const onlineTtlS = opts.onlineTokenTtlS ?? 86399;
  const access = new Map<string, AccessRec>();
  const refresh = new Map<string, RefreshRec>();
  const counts = new Map<string, OAuthCounters>();
  const revokedLegacy = new Set<string>();
  const countsOf = (domain: string): OAuthCounters => {
    let c = counts.get(domain);
    if (!c) {
      c = { tokenExchanges: 0, refreshes: 0, refreshesRefused: 0, exchangesRefused: 0 };
      counts.set(domain, c);
    }
    return c;
  };

  const newToken = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex")}`;
  const err = (status: number, error: string, error_description: string) => ({
    status,
    body: { error, error_description },
  });

  function issueExpiringOffline(domain: string, scope: string) {
    const now = clock.now();
    const accessToken = newToken("simat");
    const refreshToken = newToken("simrt");
    access.set(accessToken, {
      domain,
      kind: "offline",
      expiresAt: now + accessTtlS * 1000,
      revoked: false,
      scope,
    });
    refresh.set(refreshToken, {
      domain,
      expiresAt: now + refreshTtlS * 1000,
      used: false,
      revoked: false,
    });
    return {
      access_token: accessToken,
      scope,
      expires_in: accessTtlS,
      refresh_token: refreshToken,
      refresh_token_expires_in: refreshTtlS,
    };
  }

  function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
    if (contentType?.includes("application/x-www-form-urlencoded"))
      return Object.fromEntries(new URLSearchParams(raw));
    try {
      const v = JSON.parse(raw) as unknown;
      return v && typeof v === "object" ? (v as Record<string, unknown>) : {};
    } catch {
      return Object.fromEntries(new URLSearchParams(raw));
    }
  }

  function tokenExchange(domain: string, body: Record<string, unknown>) {
    const c = countsOf(domain);
    c.tokenExchanges++;
    const refuse = (status: number, error: string, description: string) => {
      c.exchangesRefused++;
      return err(status, error, description);
    };
    if (body.subject_token_type !== ID_TOKEN_TYPE)
      return refuse(400, "invalid_request", "subject_token_type must be an id_token");
    if (typeof body.subject_token !== "string" || !body.subject_token)
      return refuse(400, "invalid_request", "subject_token is required");
    const v = verifyJwt(body.subject_token, opts.apiSecret);
    if (!v.ok) return refuse(400, "invalid_subject_token", `Invalid id_token: ${v.why}`);
    const p = v.payload;
    const nowS = Math.floor(clock.now() / 1000);
    if (typeof p.exp !== "number" || p.exp <= nowS)
      return refuse(400, "invalid_subject_token", "Invalid id_token: expired");
    if (typeof p.nbf === "number" && p.nbf > nowS + 5)
      return refuse(400, "invalid_subject_token", "Invalid id_token: not yet valid");
    if (p.aud !== opts.apiKey)
      return refuse(400, "invalid_subject_token", "Invalid id_token: wrong audience");
    if (p.dest !== `https://${domain}` || p.iss !== `https://${domain}/admin`)
      return refuse(400, "invalid_subject_token", "Invalid id_token: issued for another shop");
    const scope = opts.scopesFor(domain);
    if (body.requested_token_type === OFFLINE_TOKEN_TYPE) {
      if (String(body.expiring ?? "0") === "1")
        return { status: 200, body: issueExpiringOffline(domain, scope) };
      const accessToken = newToken("simat");
      access.set(accessToken, { domain, kind: "offline", expiresAt: null, revoked: false, scope });
      return { status: 200, body: { access_token: accessToken, scope } };
    }
    if (body.requested_token_type === ONLINE_TOKEN_TYPE) {
      const accessToken = newToken("simua");
      access.set(accessToken, {
        domain,
        kind: "online",
        expiresAt: clock.now() + onlineTtlS * 1000,
        revoked: false,
        scope,
      });
      const userId = Number(p.sub);
      return {
        status: 200,
        body: {
          access_token: accessToken,
          scope,
          expires_in: onlineTtlS,
          associated_user_scope: scope,
          session: typeof p.sid === "string" ? p.sid : undefined,
          associated_user: {
            id: Number.isFinite(userId) ? userId : 1,
            first_name: "Sim",
            last_name: "Merchant",
            email: "merchant@example.com",
            account_owner: true,
            locale: "en",
            collaborator: false,
            email_verified: true,
          },
        },
      };
    }
    return refuse(400, "invalid_request", "requested_token_type is not supported");
  }

  function refreshGrant(domain: string, body: Record<string, unknown>) {
    const c = countsOf(domain);
    c.refreshes++;
    const rt = typeof body.refresh_token === "string" ? body.refresh_token : "";
    const rec = refresh.get(rt);
    const refuse = (description: string) => {
      c.refreshesRefused++;
      return err(400, "invalid_grant", description);
    };
    if (!rec || rec.domain !== domain) return refuse("Refresh token is invalid.");
    if (rec.revoked) return refuse("Token has been expired or revoked.");
    if (rec.used) return refuse("Refresh token has already been used.");
    if (rec.expiresAt <= clock.now()) return refuse("Token has been expired or revoked.");
    rec.used = true;
    return { status: 200, body: issueExpiringOffline(domain, opts.scopesFor(domain)) };
  }

  return {
    clock,
    setLatency(ms) {
      latencyMs = ms;
    },
    setLifetimes(l) {
      if (l.accessTokenTtlS !== undefined) accessTtlS = l.accessTokenTtlS;
      if (l.refreshTokenTtlS !== undefined) refreshTtlS = l.refreshTokenTtlS;
    },
    mintIdToken(domain, o = {}) {
      const nowS = Math.floor(clock.now() / 1000);
      const d = domain.toLowerCase();
      return signJwtHs256(
        {
          iss: `https://${d}/admin`,
          dest: `https://${d}`,
          aud: opts.apiKey,
          sub: String(o.userId ?? 1),
          exp: nowS + (o.ttlS ?? 60),
          nbf: nowS,
          iat: nowS,
          jti: randomBytes(12).toString("hex"),
          sid: randomBytes(12).toString("hex"),
          ...o.overrides,
        },
        o.secret ?? opts.apiSecret,
      );
    },
    revokeTokens(domain) {
      const d = domain.toLowerCase();
      for (const rec of access.values()) if (rec.domain === d) rec.revoked = true;
      for (const rec of refresh.values()) if (rec.domain === d) rec.revoked = true;
      const legacy = opts.legacyTokenOf?.(d);
      if (legacy) revokedLegacy.add(legacy);
    },
    expireAccessToken(domain) {
      const d = domain.toLowerCase();
      const now = clock.now();
      for (const rec of access.values()) {
        if (rec.domain === d && rec.expiresAt !== null && rec.expiresAt > now) rec.expiresAt = now;
      }
    },
    accessTokenStatus(domain, token) {
      if (!token) return "unknown";
      if (token === opts.legacyTokenOf?.(domain.toLowerCase()))
        return revokedLegacy.has(token) ? "revoked" : "ok";
      const rec = access.get(token);
      if (!rec || rec.domain !== domain.toLowerCase()) return "unknown";
      if (rec.revoked) return "revoked";
      if (rec.expiresAt !== null && rec.expiresAt <= clock.now()) return "expired";
      return "ok";
    },
    counters(domain) {
      if (domain) return { ...countsOf(domain.toLowerCase()) };
      const total: OAuthCounters = {
        tokenExchanges: 0,
        refreshes: 0,
        refreshesRefused: 0,
        exchangesRefused: 0,
      };
      for (const c of counts.values()) {
        total.tokenExchanges += c.tokenExchanges;
        total.refreshes += c.refreshes;
        total.refreshesRefused += c.refreshesRefused;
        total.exchangesRefused += c.exchangesRefused;
      }
      return total;
    },
    async handleTokenRequest(domain, rawBody, contentType) {
      if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
      const d = domain.toLowerCase();
      if (!opts.hasShop(d)) return { status: 404, body: { errors: "Not Found" } };
      const body = parseBody(rawBody, contentType);
      if (body.client_id !== opts.apiKey || !secretsEqual(body.client_secret, opts.apiSecret)) {
        return err(
          401,
          "invalid_client",
          "Client authentication failed: unknown client_id or wrong client_secret.",
        );
      }
      if (body.grant_type === TOKEN_EXCHANGE_GRANT) return tokenExchange(d, body);
      if (body.grant_type === "refresh_token") return refreshGrant(d, body);
      return err(400, "unsupported_grant_type", "grant_type is not supported");
    },
  };
}
