import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { call, client, envelope, receiver } from "./test-helpers";

const DAY = 24 * 3_600_000;
let sim: ServiceSim;

beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 50 });
});
afterAll(() => sim.close());

const getToken = async (apiKey: string) =>
  envelope(await call(sim, "POST", "/authentication/getAccessToken", { body: { apiKey } }));
const balance = async (token: string) =>
  envelope(await call(sim, "GET", "/shopping/pay/getBalance", { token }));

describe("envelope", () => {
  it("wraps success and errors in the Part 1 envelope", async () => {
    const c = await client(sim, { balance: "12.30" });
    const ok = await c.get("/shopping/pay/getBalance");
    expect(ok).toMatchObject({
      code: 200,
      result: true,
      message: expect.any(String),
      data: { amount: 12.3 },
    });
    expect(ok.requestId).toMatch(/^[0-9a-f]{32}$/);

    const err = await c.post("/product/addToMyProduct", {});
    expect(err).toMatchObject({ code: 1600100, result: false, data: null });
    expect(err.message).toContain("productId");
  });

  it("answers globalWarehouseList with success and no result, videos with code 0", async () => {
    const c = await client(sim);
    const wh = await c.get("/product/globalWarehouseList");
    expect(wh.code).toBe(200);
    expect(wh.success).toBe(true);
    expect(wh).not.toHaveProperty("result");
    expect(wh.data[0]).toMatchObject({ countryCode: "CN", id: "1", areaId: 1 });

    const withVideo = sim.state.catalog.products.find((p) => p.hasVideo);
    const videos = await c.post("/product/queryVideosByProductId", { productId: withVideo?.pid });
    expect(videos.code).toBe(0);
    expect(videos.success).toBe(true);
    expect(videos.data.length).toBeGreaterThan(0);
    const empty = await c.post("/product/queryVideosByProductId", {});
    expect(empty.code).toBe(1600100);
  });

  it("answers unknown paths with 404 and bad JSON with 1600100", async () => {
    const c = await client(sim);
    expect((await c.raw("GET", "/nope")).status).toBe(404);
    const res = await fetch(`${sim.url}/api2.0/v1/shopping/order/addCart`, {
      method: "POST",
      headers: { "Svc-Access-Token": c.token, "content-type": "application/json" },
      body: "{not json",
    });
    expect((await envelope(res)).code).toBe(1600100);
  });
});

describe("token lifecycle", () => {
  it("returns the same tokens within 24 hours and enforces once per 5 minutes", async () => {
    const { apiKey } = sim.createAccount();
    const first = await getToken(apiKey);
    expect(first.code).toBe(200);
    expect(first.data.openId).toEqual(expect.any(Number));
    expect(first.data.accessTokenExpiryDate).toMatch(/\+00:00$/);

    const tooSoon = await getToken(apiKey);
    expect(tooSoon.code).toBe(1600200);

    sim.clock.advance(5 * 60_000);
    const again = await getToken(apiKey);
    expect(again.data.accessToken).toBe(first.data.accessToken);
    expect(again.data.refreshToken).toBe(first.data.refreshToken);

    sim.clock.advance(DAY);
    const fresh = await getToken(apiKey);
    expect(fresh.data.accessToken).not.toBe(first.data.accessToken);
    expect((await balance(first.data.accessToken)).code).toBe(1600001);
    expect((await balance(fresh.data.accessToken)).code).toBe(200);
  });

  it("rejects unknown API keys with 1601000 and missing tokens with 1600001", async () => {
    expect((await getToken("no-such-key")).code).toBe(1601000);
    expect((await balance("")).code).toBe(1600001);
    expect((await balance("AT-made-up")).code).toBe(1600001);
  });

  it("expires access tokens on the clock; refresh revives them; logout kills both", async () => {
    const { apiKey } = sim.createAccount();
    const t = (await getToken(apiKey)).data;
    const refresh = (token: string) =>
      call(sim, "POST", "/authentication/refreshAccessToken", {
        body: { refreshToken: token },
      }).then(envelope);

    // Within the 24-hour window a refresh returns the same tokens, without openId.
    const same = await refresh(t.refreshToken);
    expect(same.data.accessToken).toBe(t.accessToken);
    expect(same.data).not.toHaveProperty("openId");

    sim.clock.advance(16 * DAY);
    const expired = await balance(t.accessToken);
    expect(expired.code).toBe(1600001);
    expect(expired.message).toContain("expired");

    const renewed = await refresh(t.refreshToken);
    expect(renewed.code).toBe(200);
    expect(renewed.data.accessToken).not.toBe(t.accessToken);
    expect((await balance(renewed.data.accessToken)).code).toBe(200);
    expect((await refresh(t.refreshToken)).code).toBe(1600003); // the old refresh token is gone

    const out = await envelope(
      await call(sim, "POST", "/authentication/logout", { token: renewed.data.accessToken }),
    );
    expect(out).toMatchObject({ code: 200, data: true });
    expect((await balance(renewed.data.accessToken)).code).toBe(1600001);
    sim.clock.advance(1000);
    expect((await refresh(renewed.data.refreshToken)).code).toBe(1600003);
  });

  it("runs the authorization-code flow for an affiliated merchant", async () => {
    const parent = await client(sim);
    const rx = await receiver();
    try {
      const url = await parent.post("/authentication/getAuthorizeUrl", {
        email: "aff@shop.test",
        callbackUri: rx.url,
        redirectUri: "https://partner.test/done",
        state: "xyz",
      });
      expect(url.code).toBe(200);
      expect(typeof url.data).toBe("string");

      // The user logs in on the returned page; the service posts the code to the receiver.
      const page = await fetch(url.data as string, { redirect: "manual" });
      expect(page.status).toBe(302);
      expect(page.headers.get("location")).toBe("https://partner.test/done");
      expect(rx.received).toHaveLength(1);
      const { code, state } = rx.received[0]?.body as { code: string; state: string };
      expect(state).toBe("xyz");

      const tokens = await parent.post("/authentication/exchangeAccessToken", { code });
      expect(tokens.code).toBe(200);
      expect(tokens.data.openId).not.toBe(Number(parent.openId));
      expect((await balance(tokens.data.accessToken)).code).toBe(200);
      expect((await parent.post("/authentication/exchangeAccessToken", { code })).code).toBe(
        1601000,
      );

      // An affiliated merchant cannot start another authorisation.
      const nested = await envelope(
        await call(sim, "POST", "/authentication/getAuthorizeUrl", {
          token: tokens.data.accessToken,
          body: { callbackUri: rx.url },
        }),
      );
      expect(nested.code).toBe(1601000);
    } finally {
      await rx.close();
    }
  });
});
