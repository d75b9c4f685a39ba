import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "../sim/service/index";
import { serveRoutes } from "../helpers/app-server";

// The app's configuration is read at import: point it at the simulator first, then import.
let sim: ServiceSim;
let app: Awaited<ReturnType<typeof serveRoutes>>;
let mods: {
  prisma: typeof import("../../app/db.server").prisma;
  partnerAuthFlow: typeof import("../../app/svc-account/partner.server").partnerAuthFlow;
  startAuthorization: typeof import("../../app/svc-account/authorize.server").startAuthorization;
  svcClientForAccount: typeof import("../../app/svc/index.server").svcClientForAccount;
};
const SHOP = "affiliated.myshopify.com";

beforeAll(async () => {
  sim = await startServiceSim();
  const partner = sim.createAccount({ balance: "0" });
  process.env.SVC_BASE_URL = sim.url;
  process.env.SVC_PARTNER_API_KEY = partner.apiKey;
  const { action } = await import("../../app/routes/svc.auth.callback");
  app = await serveRoutes({ "/svc/auth/callback": action });
  mods = {
    prisma: (await import("../../app/db.server")).prisma,
    partnerAuthFlow: (await import("../../app/svc-account/partner.server")).partnerAuthFlow,
    startAuthorization: (await import("../../app/svc-account/authorize.server")).startAuthorization,
    ...(await import("../../app/svc/index.server")),
  };
});
afterAll(async () => {
  await app.close();
  await sim.close();
  delete process.env.SVC_BASE_URL;
  delete process.env.SVC_PARTNER_API_KEY;
});

async function startFlow() {
  const deps = await mods.partnerAuthFlow(mods.prisma);
  if (!deps) throw new Error("flow not configured");
  return mods.startAuthorization(deps, {
    shopDomain: SHOP,
    callbackUri: `${app.url}/svc/auth/callback`,
    redirectUri: "https://admin.shopify.com/store/affiliated/apps/dropship",
    email: "owner@affiliated.example",
  });
}

const post = (body: unknown) =>
  fetch(`${app.url}/svc/auth/callback`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("authorization-code receiver (Part 1 §6.3)", () => {
  it("the service posts the code; the receiver exchanges it and stores the shop's tokens encrypted", async () => {
    const { url } = await startFlow();
    const done = await (
      await fetch(`${url}&email=owner%40affiliated.example`, { method: "POST" })
    ).json();
    expect(done.receiverStatus).toBe(200);
    expect(done.receiverBody).toEqual({ result: "0", message: "success" });

    const account = await mods.prisma.svcAccount.findUniqueOrThrow({ where: { shopDomain: SHOP } });
    expect(account.authMethod).toBe("authorizationCode");
    expect(account.accessTokenEnc).toMatch(/^v2\./);
    // The stored tokens work at the service.
    const client = await mods.svcClientForAccount(account.id, { prisma: mods.prisma });
    await expect(client.payment.getBalance()).resolves.toBeTruthy();

    // The same code and state again: the state is single use.
    const replay = await post({ code: done.code, state: done.state });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ result: "1", message: "state expired or already used" });
  });

  it("refuses an unknown state, an expired one, and a malformed body, changing nothing", async () => {
    const before = await mods.prisma.svcAccount.count();
    const unknown = await post({ code: "abc", state: "not-a-state" });
    expect(await unknown.json()).toMatchObject({ result: "1" });

    const { state } = await startFlow();
    await mods.prisma.authState.update({ where: { state }, data: { expiresAt: new Date(0) } });
    expect(await (await post({ code: "abc", state })).json()).toMatchObject({ result: "1" });

    const bad = await fetch(`${app.url}/svc/auth/callback`, { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
    expect(await mods.prisma.svcAccount.count()).toBe(before);
  });
});
