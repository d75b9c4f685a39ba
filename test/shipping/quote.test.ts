/**
 * Stored freight quotes (app/shipping/quote.server.ts), the parts choose.test.ts leaves open: the
 * key's exact text (so normalising, summing and sorting are checked, not only compared), the
 * per-line quantities when the combined quote offers nothing, a refreshed quote stored over the
 * old one, and a stored quote of another shape read as nothing offered.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUOTE_TTL_MS, quoteFor, quoteKey } from "../../app/shipping/quote.server";
import type { SvcClient } from "../../app/svc/index.server";
import { closeSvcPools } from "../../app/svc/transport.server";
import {
  accountFixture,
  prisma,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "../svc/sim-helpers";

let sim: ServiceSim;
let fx: Fixture;
let vids: string[] = [];
let clockMs = Date.parse("2026-11-25T08:00:00Z");
beforeAll(async () => {
  sim = await startServiceSim({ catalogSize: 20 });
  fx = await accountFixture(sim, { callsPerSecond: 50, queryCallsPerSecond: 50 });
  vids = [...sim.state.catalog.variantByVid.values()].filter((v) => !v.removed).map((v) => v.vid);
});
afterAll(async () => {
  await closeSvcPools();
  await sim.close();
});

const deps = (client: SvcClient = fx.client) => ({
  prisma,
  svcFor: async () => client,
  clock: { now: () => clockMs },
});
const sha = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex");

describe("the key", () => {
  it("is the hash of the account, route upper-cased, zip without spaces, variants summed and sorted", () => {
    expect(
      quoteKey("acc-1", {
        from: "cn",
        to: "us",
        zip: " ab 1\t2 ",
        products: [
          { vid: "c", quantity: 1 },
          { vid: "a", quantity: 2 },
          { vid: "b", quantity: 4 },
          { vid: "a", quantity: 3 },
        ],
      }),
    ).toBe(
      sha([
        "acc-1",
        "CN",
        "US",
        "AB12",
        [
          ["a", 5],
          ["b", 4],
          ["c", 1],
        ],
      ]),
    );
    expect(quoteKey("acc-2", { from: "CN", to: "DE", products: [{ vid: "z", quantity: 1 }] })).toBe(
      sha(["acc-2", "CN", "DE", "", [["z", 1]]]),
    );
  });
});

/** The client with freightCalculate offering nothing for several variants at once. */
function ownMethodsOnly(client: SvcClient, asked: unknown[]): SvcClient {
  const logistics = new Proxy(client.logistics, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== "freightCalculate" || typeof v !== "function") return v;
      return async (req: { products: unknown[] }) => {
        asked.push(req.products);
        return req.products.length > 1
          ? []
          : (v as (r: unknown) => Promise<unknown>).call(target, req);
      };
    },
  });
  return new Proxy(client, {
    get: (t, p, r) => (p === "logistics" ? logistics : (Reflect.get(t, p, r) as unknown)),
  });
}

describe("quotes", () => {
  it("per line: each variant asked alone with its own quantity", async () => {
    const asked: unknown[] = [];
    const client = ownMethodsOnly(fx.client, asked);
    const q = await quoteFor(deps(client), fx.accountId, {
      from: "CN",
      to: "US",
      products: [
        { vid: vids[10]!, quantity: 1 },
        { vid: vids[11]!, quantity: 4 },
        { vid: vids[10]!, quantity: 2 },
      ],
    });
    expect(q.perLine).toBe(true);
    expect(asked).toEqual([
      [
        { vid: vids[10]!, quantity: 1 },
        { vid: vids[11]!, quantity: 4 },
        { vid: vids[10]!, quantity: 2 },
      ],
      [{ vid: vids[10]!, quantity: 3 }],
      [{ vid: vids[11]!, quantity: 4 }],
    ]);
  });

  it("one variant: asked once, not per line, even when nothing is offered", async () => {
    const asked: unknown[] = [];
    const client = ownMethodsOnly(fx.client, asked);
    const q = await quoteFor(deps(client), fx.accountId, {
      from: "CN",
      to: "FR",
      products: [
        { vid: vids[12]!, quantity: 1 },
        { vid: vids[12]!, quantity: 1 },
      ],
    });
    expect(q.perLine).toBe(false);
    expect(q.options).toEqual([]);
    expect(asked).toHaveLength(1);
  });

  it("a refreshed quote replaces the stored one; a stored quote of another shape offers nothing", async () => {
    const input = { from: "CN", to: "GB", products: [{ vid: vids[13]!, quantity: 1 }] };
    const key = quoteKey(fx.accountId, input);
    const first = await quoteFor(deps(), fx.accountId, input);
    clockMs += QUOTE_TTL_MS;
    const second = await quoteFor(deps(), fx.accountId, input);
    expect(second.fetchedAt).toEqual(new Date(clockMs));
    expect(second.fetchedAt).not.toEqual(first.fetchedAt);
    const row = await prisma.freightQuote.findUniqueOrThrow({ where: { key } });
    expect(row.fetchedAt).toEqual(new Date(clockMs));
    // Read back from the database within its time.
    clockMs += 1000;
    expect((await quoteFor(deps(), fx.accountId, input)).fetchedAt).toEqual(
      new Date(clockMs - 1000),
    );
    await prisma.freightQuote.update({
      where: { key },
      data: { options: { options: "not a list", perLine: "yes" } },
    });
    expect(await quoteFor(deps(), fx.accountId, input)).toEqual({
      options: [],
      perLine: false,
      fetchedAt: new Date(clockMs - 1000),
    });
    await prisma.freightQuote.update({ where: { key }, data: { options: {} } });
    expect((await quoteFor(deps(), fx.accountId, input)).options).toEqual([]);
  });
});
