/**
 * Unsubscribe tokens, alone (app/notify/unsubscribe.server.ts): a token reads back as the shop
 * and kind it was made for, only with the app's secret; anything altered, forged, of the wrong
 * shape or of an unknown kind reads as nothing, without throwing. The route and the emails that
 * carry the links are in test/notify/digest.test.ts.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { config } from "../../app/config.server";
import { NOTICE_KINDS, isNoticeKind } from "../../app/notify/kinds";
import {
  readUnsubscribeToken,
  unsubscribeToken,
  unsubscribeUrl,
} from "../../app/notify/unsubscribe.server";

const SECRET = "unit-test-secret";
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
/** A token signed as the app signs (the MAC's label and input written out here). */
const signed = (payload: string, secret = SECRET) =>
  `${payload}.${createHmac("sha256", secret).update(`notify-unsubscribe:${payload}`).digest("base64url")}`;

describe("unsubscribe tokens", () => {
  it("read back as the shop and kind they were made for, for every kind and 'all'", () => {
    for (const kind of [...NOTICE_KINDS, "all" as const]) {
      const t = unsubscribeToken("a.myshopify.com", kind, SECRET);
      expect(t).toBe(signed(b64({ s: "a.myshopify.com", k: kind })));
      expect(readUnsubscribeToken(t, SECRET)).toEqual({ shop: "a.myshopify.com", kind });
    }
  });

  it("use the app's secret by default", () => {
    const t = unsubscribeToken("b.myshopify.com", "outage");
    expect(t).toBe(signed(b64({ s: "b.myshopify.com", k: "outage" }), config.SHOPIFY_API_SECRET));
    expect(readUnsubscribeToken(t)).toEqual({ shop: "b.myshopify.com", kind: "outage" });
    expect(readUnsubscribeToken(t, SECRET)).toBeNull();
  });

  it("read as nothing when forged, altered or malformed", () => {
    const good = unsubscribeToken("a.myshopify.com", "all", SECRET);
    const [payload, sig] = good.split(".") as [string, string];
    expect(readUnsubscribeToken(good, "another-secret")).toBeNull();
    expect(readUnsubscribeToken(`${b64({ s: "b.myshopify.com", k: "all" })}.${sig}`, SECRET)).toBe(
      null,
    );
    expect(readUnsubscribeToken(`${payload}.${sig.slice(0, -1)}`, SECRET)).toBeNull();
    expect(readUnsubscribeToken(`${payload}.${sig.slice(0, -2)}xx`, SECRET)).toBeNull();
    expect(readUnsubscribeToken(`${payload}.${sig}.x`, SECRET)).toBeNull();
    expect(readUnsubscribeToken(`${payload}.${sig}.`, SECRET)).toBeNull();
    expect(readUnsubscribeToken(payload, SECRET)).toBeNull();
    expect(readUnsubscribeToken(`.${sig}`, SECRET)).toBeNull();
    expect(readUnsubscribeToken(`${payload}.`, SECRET)).toBeNull();
    expect(readUnsubscribeToken("", SECRET)).toBeNull();
    // Signed, but not what the app writes.
    expect(readUnsubscribeToken(signed(b64({ s: "a.myshopify.com", k: "news" })), SECRET)).toBe(
      null,
    );
    expect(readUnsubscribeToken(signed(b64({ s: "", k: "all" })), SECRET)).toBeNull();
    expect(readUnsubscribeToken(signed(b64({ s: 7, k: "all" })), SECRET)).toBeNull();
    expect(readUnsubscribeToken(signed(b64({ k: "all" })), SECRET)).toBeNull();
    expect(readUnsubscribeToken(signed(b64({ s: "a.myshopify.com" })), SECRET)).toBeNull();
    expect(readUnsubscribeToken(signed(b64(null)), SECRET)).toBeNull();
    expect(
      readUnsubscribeToken(signed(Buffer.from("not json").toString("base64url")), SECRET),
    ).toBeNull();
    expect(readUnsubscribeToken(signed(b64({ s: "a.myshopify.com", k: "all" })), SECRET)).toEqual({
      shop: "a.myshopify.com",
      kind: "all",
    });
  });

  it("refuses a token past 1000 characters before reading it", () => {
    const shopOf = (len: number) => `${"s".repeat(len)}.myshopify.com`;
    const lengths = new Set<number>();
    for (let len = 600; len < 760; len++) {
      const t = signed(b64({ s: shopOf(len), k: "all" }));
      lengths.add(t.length);
      if (t.length <= 1000)
        expect(readUnsubscribeToken(t, SECRET), String(t.length)).not.toBe(null);
      else expect(readUnsubscribeToken(t, SECRET), String(t.length)).toBeNull();
    }
    // Both sides of the limit, and the limit itself, were tried.
    expect(lengths.has(1000)).toBe(true);
    expect(lengths.has(1002)).toBe(true); // (no base64url payload makes 1001)
  });

  it("make a link to the app's unsubscribe page, the token URL-encoded", () => {
    const url = new URL(unsubscribeUrl("c.myshopify.com", "disputes"));
    expect(`${url.origin}${url.pathname}`).toBe(
      `${config.SHOPIFY_APP_URL.replace(/\/$/, "")}/notifications/unsubscribe`,
    );
    expect(url.searchParams.get("t")).toBe(unsubscribeToken("c.myshopify.com", "disputes"));
    expect(unsubscribeUrl("c.myshopify.com", "all")).not.toContain("//notifications");
  });

  it("knows the kinds of email", () => {
    expect([...NOTICE_KINDS]).toEqual([
      "failures",
      "low_balance",
      "outage",
      "webhooks",
      "disputes",
    ]);
    for (const k of NOTICE_KINDS) expect(isNoticeKind(k)).toBe(true);
    for (const k of ["all", "", "Failures", 1, null, undefined])
      expect(isNoticeKind(k)).toBe(false);
  });
});
