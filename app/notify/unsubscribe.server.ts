/**
 * Unsubscribe links: a token naming the shop and the kind of email ("all" for every kind),
 * signed with the app's secret so nobody can turn off another shop's emails. It does not
 * expire: an old email's link still works.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { config } from "../config.server";
import { isNoticeKind, type NoticeKind } from "./kinds";

export type UnsubscribeScope = NoticeKind | "all";

function mac(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(`notify-unsubscribe:${payload}`).digest("base64url");
}

export function unsubscribeToken(
  shop: string,
  kind: UnsubscribeScope,
  secret = config.SHOPIFY_API_SECRET,
): string {
  const payload = Buffer.from(JSON.stringify({ s: shop, k: kind })).toString("base64url");
  return `${payload}.${mac(payload, secret)}`;
}

/** The shop and kind of a genuine token; null for anything else (never throws). */
export function readUnsubscribeToken(
  token: string,
  secret = config.SHOPIFY_API_SECRET,
): { shop: string; kind: UnsubscribeScope } | null {
  if (token.length > 1000) return null;
  const [payload, sig, extra] = token.split(".");
  if (!payload || !sig || extra !== undefined) return null;
  const want = Buffer.from(mac(payload, secret));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const v = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      s?: unknown;
      k?: unknown;
    };
    if (typeof v.s !== "string" || !v.s) return null;
    if (v.k !== "all" && !isNoticeKind(v.k)) return null;
    return { shop: v.s, kind: v.k };
  } catch {
    return null;
  }
}

export function unsubscribeUrl(shop: string, kind: UnsubscribeScope): string {
  const base = config.SHOPIFY_APP_URL.replace(/\/$/, "");
  return `${base}/notifications/unsubscribe?t=${encodeURIComponent(unsubscribeToken(shop, kind))}`;
}
