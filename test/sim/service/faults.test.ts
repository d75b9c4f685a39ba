import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { client, envelope, orderBody, receiver, variants } from "./test-helpers";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 30, allowLoopbackWebhooks: true });
});
afterEach(() => sim.clearFaults());
afterAll(() => sim.close());

describe("injected faults", () => {
  it("time-out on createOrderV3: the order IS created, the reply is lost; look it up by number", async () => {
    const c = await client(sim);
    const [v] = variants(sim, 1);
    sim.setFaults({ rateTimeout: 1, ops: ["createOrderV3"], timeoutMs: 400 });
    const body = orderBody("TO-1", [{ vid: v?.vid, quantity: 1 }]);
    await expect(
      c.raw("POST", "/shopping/order/createOrderV3", { body, signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow();
    sim.clearFaults();

    expect(sim.order("TO-1")?.orderId).toMatch(/^SO/);
    const found = await c.post("/shopping/order/getOrderDetailBatch", { orderIds: ["TO-1"] });
    expect(found.data).toHaveLength(1);
    expect(found.data[0].orderId).toBe(sim.order("TO-1")?.orderId);
    expect((await c.post("/shopping/order/createOrderV3", body)).code).toBe(1603003);
    expect(sim.calls({ op: "createOrderV3", accountId: c.accountId })[0]?.fault).toBe("timeout");
  });

  it("time-out answers late to a patient client, or drops the connection with timeoutDrop", async () => {
    const c = await client(sim);
    sim.setFaults({ rateTimeout: 1, ops: ["getCategory"], timeoutMs: 150 });
    const started = Date.now();
    const late = await c.get("/product/getCategory");
    expect(late.code).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    sim.setFaults({ rateTimeout: 1, ops: ["getCategory"], timeoutMs: 50, timeoutDrop: true });
    await expect(c.get("/product/getCategory")).rejects.toThrow();
  });

  it("5xx, 1600000 and 1600200 faults answer before the operation runs", async () => {
    const c = await client(sim, { balance: "100.00" });
    const [v] = variants(sim, 1);
    sim.setFaults({ rate5xx: 1, ops: ["createOrderV3"] });
    const res = await c.raw("POST", "/shopping/order/createOrderV3", {
      body: orderBody("F-5", [{ vid: v?.vid, quantity: 1 }]),
    });
    expect(res.status).toBe(503);
    expect(sim.order("F-5")).toBeUndefined();

    sim.setFaults({ rateBusy: 1 });
    const busy = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("F-B", [{ vid: v?.vid, quantity: 1 }]),
    );
    expect(busy).toMatchObject({ code: 1600000, result: false, data: null });
    expect(sim.order("F-B")).toBeUndefined();

    sim.setFaults({ rateLimited: 1, ops: ["getBalance"] });
    expect((await c.get("/shopping/pay/getBalance")).code).toBe(1600200);
    expect((await c.get("/product/getCategory")).code).toBe(200); // other ops unaffected
    const logged = sim.calls({ op: "getBalance", accountId: c.accountId }).at(-1);
    expect(logged).toMatchObject({ code: 1600200, fault: "limited", httpStatus: 200 });
  });

  it("applies rates reproducibly", async () => {
    const c = await client(sim);
    const run = async () => {
      sim.setFaults({ rate5xx: 0.5, seed: 7, ops: ["getCategory"] });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++)
        statuses.push((await c.raw("GET", "/product/getCategory")).status);
      return statuses;
    };
    const first = await run();
    const failures = first.filter((s) => s === 503).length;
    expect(failures).toBeGreaterThan(8);
    expect(failures).toBeLessThan(32);
    expect(await run()).toEqual(first);
  });

  it("drops and duplicates webhooks", async () => {
    const c = await client(sim, { balance: "100.00" });
    const rx = await receiver();
    try {
      await c.post("/webhook/set", { order: { type: "ENABLE", callbackUrls: [rx.url] } });
      const [v] = variants(sim, 1);
      sim.setFaults({ dropWebhook: 1 });
      await c.post(
        "/shopping/order/createOrderV3",
        orderBody("WD-1", [{ vid: v?.vid, quantity: 1 }]),
      );
      await sim.deliverPendingWebhooks();
      expect(rx.received).toHaveLength(0);
      expect(sim.webhookDeliveries().filter((d) => d.accountId === c.accountId)[0]).toMatchObject({
        dropped: true,
        attempts: 0,
      });

      sim.setFaults({ duplicateWebhook: 1 });
      await c.post(
        "/shopping/order/createOrderV3",
        orderBody("WD-2", [{ vid: v?.vid, quantity: 1 }]),
      );
      await sim.deliverPendingWebhooks();
      expect(rx.received).toHaveLength(2);
      expect(rx.received[0]?.body.messageId).toBe(rx.received[1]?.body.messageId);
    } finally {
      await rx.close();
    }
  });

  it("adds latency to every API call", async () => {
    const c = await client(sim);
    sim.setLatency(120);
    const started = Date.now();
    await c.get("/product/getCategory");
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    sim.setLatency(0);
  });
});

describe("admin API", () => {
  it("drives the simulator over HTTP", async () => {
    const admin = (path: string, init?: { method?: string; body?: unknown }) =>
      fetch(`${sim.url}/__sim${path}`, {
        method: init?.method ?? (init?.body ? "POST" : "GET"),
        headers: { "content-type": "application/json" },
        body: init?.body ? JSON.stringify(init.body) : undefined,
      }).then((r) => r.json() as Promise<Record<string, any>>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const acct = await admin("/accounts", { body: { balance: "25.50", apiKey: "admin-key" } });
    expect(acct).toMatchObject({ apiKey: "admin-key", accountId: expect.any(String) });
    expect(await admin(`/accounts/${acct.accountId}/balance`)).toEqual({ amount: "25.50" });
    await admin(`/accounts/${acct.accountId}/balance`, { body: { amount: "40.01" } });
    expect(sim.getBalance(acct.accountId as string)).toBe("40.01");

    const t0 = (await admin("/clock")).now as number;
    await admin("/clock", { body: { advance: 60_000 } });
    expect(sim.clock.now() - t0).toBeGreaterThanOrEqual(60_000);

    await admin("/faults", { body: { rateBusy: 1, ops: ["getBalance"] } });
    const tok = await envelope(
      await fetch(`${sim.url}/api2.0/v1/authentication/getAccessToken`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiKey: "admin-key" }),
      }),
    );
    const bal = await envelope(
      await fetch(`${sim.url}/api2.0/v1/shopping/pay/getBalance`, {
        headers: { "Svc-Access-Token": tok.data.accessToken },
      }),
    );
    expect(bal.code).toBe(1600000);
    await admin("/faults", { method: "DELETE" });
    const calls = (await admin(
      `/calls?op=getBalance&accountId=${acct.accountId}`,
    )) as unknown as Array<{ code: number }>;
    expect(calls.map((x) => x.code)).toEqual([1600000]);
    expect((await fetch(`${sim.url}/__sim/nothing`)).status).toBe(404);
  });
});
