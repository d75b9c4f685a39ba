import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { client } from "./test-helpers";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 30 });
});
afterAll(() => sim.close());

describe("per-account rate limits", () => {
  it("allows 1 call per second per operation by default and answers 1600200 beyond", async () => {
    const c = await client(sim, { callsPerSecond: 1, queryCallsPerSecond: 2 });
    const first = await c.get("/shopping/pay/getBalance");
    const second = await c.get("/shopping/pay/getBalance");
    expect(first.code).toBe(200);
    expect(second.code).toBe(1600200);
    expect(second.data).toBeNull();
    // Another operation has its own window.
    expect((await c.get("/product/getCategory")).code).toBe(200);

    const logged = sim.calls({ op: "getBalance", accountId: c.accountId });
    expect(logged.map((x) => x.code)).toEqual([200, 1600200]);

    sim.clock.advance(1000);
    expect((await c.get("/shopping/pay/getBalance")).code).toBe(200);
  });

  it("allows 2 per second for getOrderDetailBatch and getProofOfDelivery", async () => {
    const c = await client(sim, { callsPerSecond: 1, queryCallsPerSecond: 2 });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push((await c.post("/shopping/order/getOrderDetailBatch", { orderIds: ["x"] })).code);
    expect(codes).toEqual([200, 200, 1600200]);
    const pod: number[] = [];
    for (let i = 0; i < 3; i++)
      pod.push((await c.post("/shopping/order/getProofOfDelivery", { orderIds: ["x"] })).code);
    expect(pod).toEqual([200, 200, 1600200]);
  });

  it("keeps accounts apart and honours per-account settings", async () => {
    const a = await client(sim, { callsPerSecond: 1 });
    const b = await client(sim, { callsPerSecond: 3 });
    expect((await a.get("/shopping/pay/getBalance")).code).toBe(200);
    const bCodes: number[] = [];
    for (let i = 0; i < 4; i++) bCodes.push((await b.get("/shopping/pay/getBalance")).code);
    expect(bCodes).toEqual([200, 200, 200, 1600200]);

    sim.setRateLimits(a.accountId, { callsPerSecond: 5 });
    expect((await a.get("/shopping/pay/getBalance")).code).toBe(200);
  });

  it("can be switched off", async () => {
    const free = await startServiceSim({ catalogSize: 5, enforceRateLimits: false });
    try {
      const c = await client(free, { callsPerSecond: 1 });
      const codes = await Promise.all(
        [1, 2, 3].map(() => c.get("/shopping/pay/getBalance").then((e) => e.code)),
      );
      expect(codes).toEqual([200, 200, 200]);
    } finally {
      await free.close();
    }
  });
});
