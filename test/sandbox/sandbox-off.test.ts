/**
 * Without SANDBOX=1 (as in production) the sandbox does not exist: the sign-in route is a 404,
 * a sandbox cookie (even a correctly signed one) is ignored, and the pages go through
 * Shopify's embedded auth exactly as before.
 */
import { createCookie } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { requireAdmin } from "../../app/pages/context.server";
import { sandboxEnabled, sandboxShopOf } from "../../app/sandbox/auth.server";
import { parseConfig } from "../../app/config.server";
import { loader as signinLoader } from "../../app/routes/sandbox.signin";
import { action as sandboxAction } from "../../app/routes/app.sandbox";
import { callRoute } from "../helpers/remix";

const UA = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36" };

async function signedCookie(shop: string) {
  const c = createCookie("sandbox_shop", { secrets: ["sandbox:test-api-secret"], path: "/" });
  return c.serialize({ shop });
}

describe("with the sandbox off", () => {
  it("is off in the tests' configuration, and production refuses SANDBOX=1", () => {
    expect(sandboxEnabled()).toBe(false);
    expect(() =>
      parseConfig({
        NODE_ENV: "production",
        SANDBOX: "1",
        SHOPIFY_API_KEY: "k",
        SHOPIFY_API_SECRET: "s",
        SHOPIFY_APP_URL: "https://app.example.com",
        ENCRYPTION_KEY: Buffer.alloc(32, 2).toString("base64"),
      }),
    ).toThrow(/SANDBOX must not be set in production/);
  });

  it("answers 404 on the sign-in route and on the demo actions", async () => {
    const r = await callRoute(signinLoader, new Request("https://app.test/sandbox/signin"));
    expect(r.status).toBe(404);
    expect(r.headers.get("set-cookie")).toBeNull();
    const form = new FormData();
    form.set("intent", "place-order");
    const a = await callRoute(
      sandboxAction,
      new Request("https://app.test/app/sandbox", { method: "POST", body: form }),
    );
    expect(a.status).toBe(404);
  });

  it("ignores a signed sandbox cookie and uses Shopify's embedded auth", async () => {
    const cookie = await signedCookie("demo-shop.myshopify.com");
    const request = new Request("https://app.test/app?shop=demo-shop.myshopify.com", {
      headers: { ...UA, cookie },
    });
    expect(await sandboxShopOf(request)).toBeNull();
    let thrown: unknown;
    try {
      await requireAdmin(request);
    } catch (error) {
      thrown = error;
    }
    // authenticate.admin answers a document request without an id_token with a redirect to
    // its session-token bounce page (or a login): anything but the page itself.
    expect(thrown).toBeInstanceOf(Response);
    const r = thrown as Response;
    expect(r.status).not.toBe(200);
    expect(r.headers.get("location") ?? "").not.toContain("/sandbox/signin");
  });
});
