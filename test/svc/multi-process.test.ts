import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { saveApiKeyAccount } from "../../app/svc/index.server";
import { exited, spawnTs, waitForLine } from "../helpers/child";
import { startServiceSim, type ServiceSim } from "../sim/service/index";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 10 });
});
afterAll(() => sim.close());

// Three processes need three database connections at least: the embedded PGlite serves one
// process (two connections at most), so this runs on PostgreSQL (CI sets TEST_DATABASE_URL).
describe.skipIf(!process.env.TEST_DATABASE_URL)("three processes sharing one account", () => {
  it("make one getAccessToken between them, recover any refusal, and finish their work once", async () => {
    const simAccount = sim.createAccount({ balance: "100.00" });
    const row = await saveApiKeyAccount(prisma, { baseUrl: sim.url, apiKey: simAccount.apiKey });
    const startAt = Date.now() + 3000;
    const children = [1, 2, 3].map((i) =>
      spawnTs("test/svc/fixtures/svc-child.ts", {
        DATABASE_URL: process.env.DATABASE_URL!,
        DATABASE_POOL_MAX: "2",
        SVC_ACCOUNT_ID: row.id,
        START_AT: String(startAt),
        CHILD_TAG: String(i),
      }),
    );
    await Promise.all(children.map((c) => waitForLine(c, /^done$/, 90_000)));
    expect(await Promise.all(children.map(exited))).toEqual([0, 0, 0]);

    const calls = sim.calls({ accountId: simAccount.accountId });
    // One token between them, whatever the timing: the claim lives in the database.
    expect(calls.filter((c) => c.op === "getAccessToken")).toHaveLength(1);
    // Every call of every process got through exactly once. A refusal (1600200) can happen on
    // a loaded machine (a call held up on its way arrives close behind the next); the client
    // then waits and repeats it, so the work still finishes and nothing is done twice.
    const accepted = calls.filter((c) => c.code !== 1600200);
    const count = (op: string) => accepted.filter((c) => c.op === op).length;
    expect(count("getOrderDetailBatch")).toBe(9);
    expect(count("getProofOfDelivery")).toBe(3);
    expect(count("getBalance")).toBe(6);
    // The service counts each operation in a sliding one-second window: no window holds more
    // accepted calls of one operation than the account's query rate, whatever the timing. (The
    // app's limiter counts both query operations together, the stricter reading; on a loaded
    // machine a call it lets go late may bunch with the next, and the service then refuses or
    // takes it by its own count: the limiter's spacing is asserted on a fake clock, in
    // test/svc/limiter.test.ts, not here.)
    for (const op of ["getOrderDetailBatch", "getProofOfDelivery"]) {
      const mine = accepted.filter((c) => c.op === op);
      for (const c of mine) {
        const inWindow = mine.filter((d) => d.at >= c.at && d.at < c.at + 1000).length;
        expect(inWindow).toBeLessThanOrEqual(2);
      }
    }
  }, 120_000);
});
