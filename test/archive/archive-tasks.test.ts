/**
 * The archive's copies (app/archive/archive.server.ts) one rule at a time, on the test database,
 * a loopback file server and the service simulator over HTTP: which addresses are queued (once
 * each) and the job woken; which copies are due, in what order, 20 a pass; what a kept copy and
 * a failed one record (the wait before each new try, the give-up); which service orders are
 * asked for which shop orders, 50 at a time; which orders still miss their files; and what the
 * order page is told. The end-to-end flow is in archive-flow.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ARCHIVE_JOB,
  ARCHIVE_MAX_ATTEMPTS,
  ARCHIVE_MAX_BYTES,
  ARCHIVE_MAX_FILES,
  askAndQueue,
  orderFiles,
  ordersMissing,
  queueArchive,
  runArchive,
} from "../../app/archive/archive.server";
import { closeSvcPools } from "../../app/svc/transport.server";
import { PNG_1PX, publicDns, serveFiles } from "../helpers/file-server";
import {
  accountFixture,
  prisma,
  sampleOrder,
  startServiceSim,
  type Fixture,
  type ServiceSim,
} from "../svc/sim-helpers";

const SHOP = "archive-tasks.myshopify.com";
const OTHER = "archive-tasks-other.myshopify.com";
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

let files: Awaited<ReturnType<typeof serveFiles>>;
let host: string;
beforeAll(async () => {
  files = await serveFiles({
    "/ok.png": { bytes: PNG_1PX },
    "/ok2.png": { bytes: PNG_1PX },
    "/busy": { status: 503 },
    "/gone": { status: 404 },
  });
  host = new URL(files.url).host;
});
afterAll(async () => {
  await files?.close();
});

let seq = 0;
async function shopOrder(data: Record<string, unknown> = {}, shop = SHOP) {
  const n = ++seq;
  return prisma.shopOrder.create({
    data: {
      shopDomain: shop,
      shopifyOrderId: String(n),
      orderNumber: `archive-tasks-${n}`,
      ...data,
    },
  });
}

async function clean() {
  await prisma.archiveTask.deleteMany({});
  await prisma.storedFile.deleteMany({});
  await prisma.job.deleteMany({});
}

const trusted = async () => host;

describe("queueArchive", () => {
  beforeEach(clean);

  it("queues each http(s) address once, refuses others, and wakes the archive job", async () => {
    const o = await shopOrder();
    const before = Date.now();
    const long = `${files.url}/${"x".repeat(2000)}`;
    const edge = `${files.url}/`.padEnd(2000, "y");
    expect(edge).toHaveLength(2000);
    const made = await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: o.id,
      purpose: "proof_of_delivery",
      urls: [
        `${files.url}/ok.png`,
        `${files.url}/ok.png`,
        `HTTPS://files.example.com/a.jpg`,
        "https://files.example.com/b.jpg",
        "ftp://files.example.com/c.jpg",
        "javascript:alert(1)",
        "see https://files.example.com/d.jpg",
        "",
        long,
        edge,
      ],
    });
    const after = Date.now();
    expect(made).toBe(4);
    const tasks = await prisma.archiveTask.findMany({ orderBy: { sourceUrl: "asc" } });
    expect(tasks.map((t) => t.sourceUrl).sort()).toEqual(
      [
        `${files.url}/ok.png`,
        "HTTPS://files.example.com/a.jpg",
        "https://files.example.com/b.jpg",
        edge,
      ].sort(),
    );
    for (const t of tasks) {
      expect(t).toMatchObject({
        shopDomain: SHOP,
        orderId: o.id,
        purpose: "proof_of_delivery",
        attempts: 0,
        doneAt: null,
        lastError: null,
      });
    }
    const jobs = await prisma.job.findMany();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      kind: ARCHIVE_JOB.run,
      payload: {},
      maxAttempts: 3,
      state: "available",
    });
    expect(ARCHIVE_JOB.run).toBe("archive.run");
    const key = jobs[0]!.idempotencyKey!.match(/^archive:run:(\d+)$/);
    expect(key).not.toBeNull();
    expect(Number(key![1])).toBeGreaterThanOrEqual(Math.floor(before / 10_000));
    expect(Number(key![1])).toBeLessThanOrEqual(Math.floor(after / 10_000));
  });

  it("copies at most 20 files of a purpose per order, however many the service names", async () => {
    const o = await shopOrder();
    const url = (i: number) => `https://files.example.com/p${String(i).padStart(3, "0")}.jpg`;
    const many = Array.from({ length: 500 }, (_, i) => url(i));
    expect(ARCHIVE_MAX_FILES).toBe(20);
    expect(
      await queueArchive(prisma, {
        shopDomain: SHOP,
        orderId: o.id,
        purpose: "proof_of_delivery",
        urls: many.slice(0, 15),
      }),
    ).toBe(15);
    // The same 15 again and more: only 5 more fit; then none.
    const more = { shopDomain: SHOP, orderId: o.id, purpose: "proof_of_delivery" as const };
    expect(await queueArchive(prisma, { ...more, urls: many })).toBe(5);
    expect(await queueArchive(prisma, { ...more, urls: many.slice(300) })).toBe(0);
    const kept = await prisma.archiveTask.findMany({ where: { orderId: o.id } });
    expect(kept.map((t) => t.sourceUrl).sort()).toEqual(many.slice(0, 20));
    // The other purpose has its own 20.
    expect(
      await queueArchive(prisma, { ...more, purpose: "warehouse_photo", urls: many.slice(0, 25) }),
    ).toBe(20);
  });

  it("queues nothing, and wakes no job, for addresses already queued or none usable", async () => {
    const o = await shopOrder();
    const t = { shopDomain: SHOP, orderId: o.id, purpose: "warehouse_photo" as const };
    expect(await queueArchive(prisma, { ...t, urls: [] })).toBe(0);
    expect(await queueArchive(prisma, { ...t, urls: ["ftp://x.example.com/a.png"] })).toBe(0);
    expect(await prisma.job.count()).toBe(0);
    expect(await queueArchive(prisma, { ...t, urls: [`${files.url}/ok.png`] })).toBe(1);
    await prisma.job.deleteMany({});
    expect(await queueArchive(prisma, { ...t, urls: [`${files.url}/ok.png`] })).toBe(0);
    expect(await prisma.job.count()).toBe(0);
    // The same address for the other purpose is another copy.
    expect(
      await queueArchive(prisma, {
        ...t,
        purpose: "proof_of_delivery",
        urls: [`${files.url}/ok.png`],
      }),
    ).toBe(1);
    expect(await prisma.archiveTask.count()).toBe(2);
  });
});

describe("runArchive", () => {
  beforeEach(clean);

  it("keeps a copy under the order, named by purpose and kind, and marks the task done", async () => {
    const o = await shopOrder();
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: o.id,
      purpose: "warehouse_photo",
      urls: [`${files.url}/ok.png?sig=1`],
    });
    const asked: string[] = [];
    const out = await runArchive(prisma, {
      trustedHostOf: async (shop) => {
        asked.push(shop);
        return host;
      },
    });
    expect(out).toEqual({ kept: 1, retrying: 0, gaveUp: 0, more: false });
    expect(asked).toEqual([SHOP]);
    const f = await prisma.storedFile.findFirstOrThrow({ where: { orderId: o.id } });
    expect(f).toMatchObject({
      shopDomain: SHOP,
      purpose: "warehouse_photo",
      sourceUrl: `${files.url}/ok.png?sig=1`,
      name: "warehouse_photo.png",
      contentType: "image/png",
      size: PNG_1PX.length,
    });
    expect(Buffer.from(f.data!).equals(PNG_1PX)).toBe(true);
    const t = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: o.id } });
    expect(t.attempts).toBe(1);
    expect(t.doneAt).not.toBeNull();
    expect(t.lastError).toBeNull();
    // Done: not worked again.
    expect(await runArchive(prisma, { trustedHostOf: trusted })).toEqual({
      kept: 0,
      retrying: 0,
      gaveUp: 0,
      more: false,
    });
  });

  it("only from the service's host when it is private: another private host is refused", async () => {
    const o = await shopOrder();
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: o.id,
      purpose: "proof_of_delivery",
      urls: [`${files.url}/ok.png`],
    });
    const out = await runArchive(prisma, { trustedHostOf: async () => "files.example.com" });
    expect(out).toMatchObject({ kept: 0, gaveUp: 1 });
    const t = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: o.id } });
    expect(t.lastError).toBe("the address is not allowed");
    expect(t.doneAt).not.toBeNull();
    expect(await prisma.storedFile.count()).toBe(0);
  });

  it("asks each shop's trusted host once a pass", async () => {
    const a = await shopOrder();
    const b = await shopOrder({}, OTHER);
    for (const [o, shop] of [
      [a, SHOP],
      [b, OTHER],
    ] as const) {
      await queueArchive(prisma, {
        shopDomain: shop,
        orderId: o.id,
        purpose: "warehouse_photo",
        urls: [`${files.url}/ok.png?o=${o.id}`, `${files.url}/ok2.png?o=${o.id}`],
      });
    }
    const asked: string[] = [];
    const out = await runArchive(prisma, {
      trustedHostOf: async (shop) => {
        asked.push(shop);
        return shop === SHOP ? host : undefined;
      },
    });
    expect(out).toMatchObject({ kept: 2, gaveUp: 2 });
    expect(asked.sort()).toEqual([OTHER, SHOP]);
    expect(await prisma.storedFile.count({ where: { shopDomain: SHOP } })).toBe(2);
    expect(await prisma.storedFile.count({ where: { shopDomain: OTHER } })).toBe(0);
  });

  it("waits 1 min, 5 min, 30 min, 2 h and 12 h between tries, and gives up after the sixth", async () => {
    expect(ARCHIVE_MAX_ATTEMPTS).toBe(6);
    const o = await shopOrder();
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: o.id,
      purpose: "warehouse_photo",
      urls: [`${files.url}/busy`],
    });
    let now = Date.now() + 1000;
    const waits = [MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 12 * HOUR];
    for (let i = 0; i < waits.length; i++) {
      const out = await runArchive(prisma, { trustedHostOf: trusted, now });
      expect(out, `try ${i + 1}`).toEqual({ kept: 0, retrying: 1, gaveUp: 0, more: false });
      const t = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: o.id } });
      expect(t.attempts).toBe(i + 1);
      expect(t.doneAt).toBeNull();
      expect(t.lastError).toBe("the address answered HTTP 503");
      expect(t.nextAt.getTime()).toBe(now + waits[i]!);
      // Not due a millisecond before its time.
      expect(
        await runArchive(prisma, { trustedHostOf: trusted, now: now + waits[i]! - 1 }),
      ).toEqual({ kept: 0, retrying: 0, gaveUp: 0, more: false });
      now += waits[i]!;
    }
    const last = await runArchive(prisma, { trustedHostOf: trusted, now });
    expect(last).toEqual({ kept: 0, retrying: 0, gaveUp: 1, more: false });
    const t = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: o.id } });
    expect(t.attempts).toBe(6);
    expect(t.doneAt).not.toBeNull();
    expect(t.lastError).toBe("the address answered HTTP 503");
    expect(files.hits.filter((p) => p === "/busy")).toHaveLength(6);
    expect(await runArchive(prisma, { trustedHostOf: trusted, now: now + 30 * DAY })).toMatchObject(
      { gaveUp: 0, retrying: 0 },
    );
  });

  it("gives up at once on a refusal; a copy that passes after a failure forgets the error", async () => {
    const o = await shopOrder();
    files.paths["/later.png"] = { status: 502 };
    try {
      await queueArchive(prisma, {
        shopDomain: SHOP,
        orderId: o.id,
        purpose: "proof_of_delivery",
        urls: [`${files.url}/gone`, `${files.url}/later.png`],
      });
      const now = Date.now() + 1000;
      expect(await runArchive(prisma, { trustedHostOf: trusted, now })).toEqual({
        kept: 0,
        retrying: 1,
        gaveUp: 1,
        more: false,
      });
      const gone = await prisma.archiveTask.findFirstOrThrow({
        where: { sourceUrl: `${files.url}/gone` },
      });
      expect(gone).toMatchObject({ attempts: 1, lastError: "the address answered HTTP 404" });
      expect(gone.doneAt).not.toBeNull();
      files.paths["/later.png"] = { bytes: PNG_1PX };
      expect(await runArchive(prisma, { trustedHostOf: trusted, now: now + MIN })).toEqual({
        kept: 1,
        retrying: 0,
        gaveUp: 0,
        more: false,
      });
      const later = await prisma.archiveTask.findFirstOrThrow({
        where: { sourceUrl: `${files.url}/later.png` },
      });
      expect(later).toMatchObject({ attempts: 2, lastError: null });
      expect(later.doneAt).not.toBeNull();
      const kept = await orderFiles(prisma, SHOP, o.id);
      expect(kept.files.map((f) => f.purpose)).toEqual(["proof_of_delivery"]);
      expect(kept.copying).toBe(0);
      expect(kept.failed).toEqual(["the address answered HTTP 404"]);
    } finally {
      delete files.paths["/later.png"];
    }
  });

  it("records a long error cut to 300 characters; a connection's own error never (no port, no oracle)", async () => {
    const o = await shopOrder();
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: o.id,
      purpose: "warehouse_photo",
      urls: ["https://files.example.com/a.png", "https://files.example.com/b.png"],
    });
    const now = Date.now() + 1000;
    const out = await runArchive(prisma, {
      trustedHostOf: trusted,
      now,
      resolve: publicDns,
      // The file comes, and the store fails with a long message; or the network library fails
      // with a message naming a port, or with a bare value.
      fetchImpl: (async (url: string | URL | Request) => {
        if (String(url).endsWith("/a.png")) return new Response(new Uint8Array(PNG_1PX));
        throw new Error("connect ECONNREFUSED 10.0.0.1:6379");
      }) as typeof fetch,
      bucket: {
        where: "test",
        put: async () => {
          throw new Error(`store failed ${"z".repeat(400)}`);
        },
        get: async () => Buffer.alloc(0),
        delete: async () => {},
      },
    });
    expect(out).toEqual({ kept: 0, retrying: 2, gaveUp: 0, more: false });
    const tasks = await prisma.archiveTask.findMany({ orderBy: { sourceUrl: "asc" } });
    expect(tasks[0]!.lastError).toBe(`store failed ${"z".repeat(400)}`.slice(0, 300));
    expect(tasks[0]!.lastError).toHaveLength(300);
    expect(tasks[1]!.lastError).toBe("the address could not be reached");
    for (const t of tasks) expect(t.nextAt.getTime()).toBe(now + MIN);
  });

  it("works 20 due copies a pass, the longest waiting first, and says there may be more", async () => {
    const o = await shopOrder();
    const base = Date.now() - HOUR;
    await prisma.archiveTask.createMany({
      data: Array.from({ length: 21 }, (_, i) => ({
        shopDomain: SHOP,
        orderId: o.id,
        purpose: "warehouse_photo",
        // Made in reverse: the last made is the longest waiting.
        sourceUrl: `${files.url}/ok.png?n=${i}`,
        nextAt: new Date(base + (20 - i) * 1000),
      })),
    });
    // Not due yet: never worked before its time.
    await prisma.archiveTask.create({
      data: {
        shopDomain: SHOP,
        orderId: o.id,
        purpose: "warehouse_photo",
        sourceUrl: `${files.url}/ok.png?n=future`,
        nextAt: new Date(Date.now() + HOUR),
      },
    });
    const first = await runArchive(prisma, { trustedHostOf: trusted });
    expect(first).toEqual({ kept: 20, retrying: 0, gaveUp: 0, more: true });
    const left = await prisma.archiveTask.findMany({ where: { doneAt: null } });
    expect(left.map((t) => t.sourceUrl).sort()).toEqual([
      `${files.url}/ok.png?n=0`,
      `${files.url}/ok.png?n=future`,
    ]);
    const second = await runArchive(prisma, { trustedHostOf: trusted });
    expect(second).toEqual({ kept: 1, retrying: 0, gaveUp: 0, more: false });
  });

  it("stops between copies when told to", async () => {
    const o = await shopOrder();
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: o.id,
      purpose: "warehouse_photo",
      urls: [`${files.url}/ok.png`],
    });
    const ac = new AbortController();
    ac.abort(new Error("shutting down"));
    await expect(runArchive(prisma, { trustedHostOf: trusted, signal: ac.signal })).rejects.toThrow(
      "shutting down",
    );
    expect(await prisma.archiveTask.count({ where: { doneAt: null, attempts: 0 } })).toBe(1);
    expect(
      await runArchive(prisma, { trustedHostOf: trusted, signal: new AbortController().signal }),
    ).toMatchObject({ kept: 1 });
  });

  it("refuses a file over 20 MB, and says so", async () => {
    expect(ARCHIVE_MAX_BYTES).toBe(20 * 1024 * 1024);
    const o = await shopOrder();
    files.paths["/over.png"] = {
      bytes: Buffer.concat([PNG_1PX, Buffer.alloc(ARCHIVE_MAX_BYTES + 1 - PNG_1PX.length)]),
    };
    try {
      await queueArchive(prisma, {
        shopDomain: SHOP,
        orderId: o.id,
        purpose: "warehouse_photo",
        urls: [`${files.url}/over.png`],
      });
      expect(await runArchive(prisma, { trustedHostOf: trusted })).toMatchObject({
        kept: 0,
        gaveUp: 1,
      });
      const over = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: o.id } });
      expect(over.lastError).toBe("the file is larger than 20 MB");
      expect(await prisma.storedFile.count()).toBe(0);
    } finally {
      delete files.paths["/over.png"];
    }
  });
});

describe("ordersMissing", () => {
  let accountId: string;
  let otherAccountId: string;
  beforeAll(async () => {
    const mk = (baseUrl: string) =>
      prisma.svcAccount.create({ data: { baseUrl, authMethod: "apiKey" } });
    accountId = (await mk("http://svc-a.example.com")).id;
    otherAccountId = (await mk("http://svc-b.example.com")).id;
  });
  beforeEach(async () => {
    await clean();
    await prisma.shopOrder.deleteMany({
      where: { svcAccountId: { in: [accountId, otherAccountId] } },
    });
  });

  it("proof: orders delivered in the last 30 days, placed at the service, of this account", async () => {
    const now = Date.now();
    const o = (over: Record<string, unknown>) =>
      shopOrder({
        svcAccountId: accountId,
        svcOrderId: `SO-${++seq}`,
        state: "DELIVERED",
        ...over,
      });
    const edge = await o({ deliveredAt: new Date(now - 30 * DAY) });
    const recent = await o({ deliveredAt: new Date(now - DAY) });
    await o({ deliveredAt: new Date(now - 30 * DAY - 1) });
    await o({ deliveredAt: null, paidAt: new Date(now) });
    await o({ deliveredAt: new Date(now), svcOrderId: null });
    await o({ deliveredAt: new Date(now), svcAccountId: otherAccountId });
    expect((await ordersMissing(prisma, accountId, "proof_of_delivery", now)).sort()).toEqual(
      [edge.id, recent.id].sort(),
    );
  });

  it("photos: orders paid in the last 14 days, not cancelled", async () => {
    const now = Date.now();
    const o = (over: Record<string, unknown>) =>
      shopOrder({ svcAccountId: accountId, svcOrderId: `SO-${++seq}`, state: "PAID", ...over });
    const edge = await o({ paidAt: new Date(now - 14 * DAY) });
    const shipped = await o({ paidAt: new Date(now - DAY), state: "SHIPPED" });
    await o({ paidAt: new Date(now - 14 * DAY - 1) });
    await o({ paidAt: new Date(now - DAY), state: "CANCELLED" });
    await o({ paidAt: null, deliveredAt: new Date(now) });
    await o({ paidAt: new Date(now), svcOrderId: null });
    await o({ paidAt: new Date(now), svcAccountId: otherAccountId });
    expect((await ordersMissing(prisma, accountId, "warehouse_photo", now)).sort()).toEqual(
      [edge.id, shipped.id].sort(),
    );
    expect(await ordersMissing(prisma, otherAccountId, "proof_of_delivery", now)).toEqual([]);
  });

  it("leaves out orders with a kept file or a copy under way of that purpose, not failed ones", async () => {
    const now = Date.now();
    const o = () =>
      shopOrder({
        svcAccountId: accountId,
        svcOrderId: `SO-${++seq}`,
        state: "DELIVERED",
        paidAt: new Date(now - DAY),
        deliveredAt: new Date(now - DAY),
      });
    const [kept, copying, failed, keptOther, plain] = [
      await o(),
      await o(),
      await o(),
      await o(),
      await o(),
    ];
    await prisma.storedFile.create({
      data: {
        shopDomain: SHOP,
        purpose: "proof_of_delivery",
        orderId: kept.id,
        contentType: "image/png",
        size: 1,
        sha256: "x",
      },
    });
    await prisma.storedFile.create({
      data: {
        shopDomain: SHOP,
        purpose: "warehouse_photo",
        orderId: keptOther.id,
        contentType: "image/png",
        size: 1,
        sha256: "y",
      },
    });
    await prisma.archiveTask.createMany({
      data: [
        {
          shopDomain: SHOP,
          orderId: copying.id,
          purpose: "proof_of_delivery",
          sourceUrl: "https://a.example.com/1",
        },
        {
          shopDomain: SHOP,
          orderId: failed.id,
          purpose: "proof_of_delivery",
          sourceUrl: "https://a.example.com/2",
          doneAt: new Date(now),
          lastError: "the address answered HTTP 403",
        },
        {
          shopDomain: SHOP,
          orderId: plain.id,
          purpose: "warehouse_photo",
          sourceUrl: "https://a.example.com/3",
        },
      ],
    });
    expect((await ordersMissing(prisma, accountId, "proof_of_delivery", now)).sort()).toEqual(
      [failed.id, keptOther.id, plain.id].sort(),
    );
    expect((await ordersMissing(prisma, accountId, "warehouse_photo", now)).sort()).toEqual(
      [kept.id, copying.id, failed.id].sort(),
    );
  });

  it("gives at most 500 a pass, the most recently changed first", async () => {
    const now = Date.now();
    await prisma.shopOrder.createMany({
      data: Array.from({ length: 502 }, (_, i) => ({
        shopDomain: SHOP,
        shopifyOrderId: `bulk-${i}`,
        orderNumber: `archive-tasks-bulk-${i}`,
        svcAccountId: accountId,
        svcOrderId: `SO-bulk-${i}`,
        state: "PAID",
        paidAt: new Date(now - HOUR),
        updatedAt: new Date(now - HOUR + i * 1000),
      })),
    });
    const ids = await ordersMissing(prisma, accountId, "warehouse_photo", now);
    expect(ids).toHaveLength(500);
    const rows = await prisma.shopOrder.findMany({
      where: { id: { in: ids } },
      select: { shopifyOrderId: true },
    });
    const numbers = rows.map((r) => Number(r.shopifyOrderId.slice("bulk-".length)));
    expect(Math.min(...numbers)).toBe(2);
    // The newest first, kept in that order.
    const first = await prisma.shopOrder.findUniqueOrThrow({ where: { id: ids[0]! } });
    expect(first.shopifyOrderId).toBe("bulk-501");
  });
});

describe("askAndQueue", () => {
  let sim: ServiceSim;
  let fx: Fixture;
  let vid = "";
  beforeAll(async () => {
    sim = await startServiceSim({ catalogSize: 6 });
    fx = await accountFixture(sim, {
      callsPerSecond: 100,
      queryCallsPerSecond: 100,
      balance: "1000.00",
    });
    vid = [...sim.state.catalog.variantByVid.values()].find((v) => !v.removed)!.vid;
  });
  afterAll(async () => {
    await closeSvcPools();
    await sim?.close();
  });
  beforeEach(clean);

  async function svcOrder(state: "created" | "paid" | "delivered") {
    const r = await fx.client.orders.createOrderV3(sampleOrder(`AT-${Date.now()}-${++seq}`, vid));
    const id = r.orderId!;
    if (state === "created") return id;
    await fx.client.payment.payBalance(id);
    if (state === "paid") return id;
    sim.ship(id, { trackNumber: `TRK-${id}` });
    sim.deliver(id);
    return id;
  }
  const asked = (op: string) =>
    sim
      .calls({ op })
      .map((c) => c.body as { orderIds?: string[]; orderIdList?: string[] })
      .map((b) => b.orderIds ?? b.orderIdList ?? []);

  it("asks for the service orders of each shop order (its shipments too) and queues their files", async () => {
    const [delivered, paid, created] = [
      await svcOrder("delivered"),
      await svcOrder("paid"),
      await svcOrder("created"),
    ];
    const x = await shopOrder({ svcOrderId: delivered, svcAccountId: fx.accountId });
    await prisma.shipment.createMany({
      data: [
        { orderId: x.id, svcOrderId: delivered, trackNumber: "T1" },
        { orderId: x.id, svcOrderId: paid, trackNumber: "T2" },
      ],
    });
    const y = await shopOrder({ svcOrderId: created, svcAccountId: fx.accountId });
    const none = await shopOrder({ svcOrderId: null });
    const podCalls = asked("getProofOfDelivery").length;
    const photoCalls = asked("syncStorehouseVideoRequests").length;

    const pod = await askAndQueue(prisma, fx.client, SHOP, "proof_of_delivery", [
      x.id,
      y.id,
      none.id,
    ]);
    expect(pod).toBe(1);
    const podAsked = asked("getProofOfDelivery").slice(podCalls);
    expect(podAsked).toHaveLength(1);
    expect([...podAsked[0]!].sort()).toEqual([delivered, paid, created].sort());
    expect(asked("syncStorehouseVideoRequests")).toHaveLength(photoCalls);
    const podTasks = await prisma.archiveTask.findMany();
    expect(podTasks).toHaveLength(1);
    expect(podTasks[0]).toMatchObject({
      shopDomain: SHOP,
      orderId: x.id,
      purpose: "proof_of_delivery",
    });
    expect(podTasks[0]!.sourceUrl).toContain(`/__files/pod/${delivered}/`);

    const photos = await askAndQueue(prisma, fx.client, SHOP, "warehouse_photo", [
      x.id,
      y.id,
      none.id,
    ]);
    expect(photos).toBe(2);
    const photoAsked = asked("syncStorehouseVideoRequests").slice(photoCalls);
    expect(photoAsked).toHaveLength(1);
    expect([...photoAsked[0]!].sort()).toEqual([delivered, paid, created].sort());
    const photoTasks = await prisma.archiveTask.findMany({ where: { purpose: "warehouse_photo" } });
    expect(photoTasks.map((t) => t.orderId)).toEqual([x.id, x.id]);
    expect(photoTasks.map((t) => t.sourceUrl.match(/photo\/([^/]+)\//)?.[1]).sort()).toEqual(
      [delivered, paid].sort(),
    );
    // Asked again: the same addresses, nothing new.
    expect(await askAndQueue(prisma, fx.client, SHOP, "warehouse_photo", [x.id])).toBe(0);
    // The copies are made from the service's host.
    const out = await runArchive(prisma, { trustedHostOf: async () => new URL(sim.url).host });
    expect(out).toMatchObject({ kept: 3, gaveUp: 0 });
    expect((await orderFiles(prisma, SHOP, x.id)).files).toHaveLength(3);
  });

  it("asks 50 service orders at a time, each once", async () => {
    const paid = await svcOrder("paid");
    const ids = [paid, ...Array.from({ length: 60 }, (_, i) => `SO-NONE-${seq}-${i}`)];
    await prisma.shopOrder.createMany({
      data: ids.map((svcOrderId, i) => ({
        shopDomain: SHOP,
        shopifyOrderId: `batch-${i}`,
        orderNumber: `archive-tasks-batch-${i}`,
        svcOrderId,
      })),
    });
    const orders = await prisma.shopOrder.findMany({
      where: { shopifyOrderId: { startsWith: "batch-" } },
      orderBy: { orderNumber: "asc" },
    });
    const before = asked("syncStorehouseVideoRequests").length;
    const n = await askAndQueue(
      prisma,
      fx.client,
      SHOP,
      "warehouse_photo",
      orders.map((o) => o.id),
    );
    expect(n).toBe(1);
    const batches = asked("syncStorehouseVideoRequests").slice(before);
    expect(batches.map((b) => b.length)).toEqual([50, 11]);
    expect(batches.flat().sort()).toEqual([...ids].sort());
    const t = await prisma.archiveTask.findFirstOrThrow();
    expect(t.orderId).toBe(orders.find((o) => o.svcOrderId === paid)!.id);
    // Orders never placed at the service: nothing to ask.
    const unplaced = await shopOrder({ svcOrderId: null });
    const calls = sim.calls().length;
    expect(await askAndQueue(prisma, fx.client, SHOP, "warehouse_photo", [unplaced.id])).toBe(0);
    expect(await askAndQueue(prisma, fx.client, SHOP, "proof_of_delivery", [])).toBe(0);
    expect(sim.calls()).toHaveLength(calls);
  });
});

describe("orderFiles", () => {
  beforeEach(clean);

  it("the order's kept proof and photos, oldest first, what is being copied and what failed", async () => {
    const o = await shopOrder();
    const other = await shopOrder();
    const file = (data: Record<string, unknown>) =>
      prisma.storedFile.create({
        data: {
          shopDomain: SHOP,
          orderId: o.id,
          contentType: "image/png",
          size: 3,
          sha256: `h${++seq}`,
          purpose: "warehouse_photo",
          ...data,
        },
      });
    const t0 = Date.now() - HOUR;
    const second = await file({ purpose: "proof_of_delivery", createdAt: new Date(t0 + 1000) });
    const first = await file({ createdAt: new Date(t0) });
    await file({ purpose: "dispute_upload", createdAt: new Date(t0 + 2000) });
    await file({ orderId: other.id });
    await file({ shopDomain: OTHER });
    const task = (data: Record<string, unknown>) =>
      prisma.archiveTask.create({
        data: {
          shopDomain: SHOP,
          orderId: o.id,
          purpose: "warehouse_photo",
          sourceUrl: `https://a.example.com/${++seq}`,
          ...data,
        },
      });
    await task({});
    await task({
      purpose: "proof_of_delivery",
      attempts: 2,
      lastError: "the address answered HTTP 503",
    });
    await task({ doneAt: new Date(), lastError: "the address answered HTTP 403" });
    await task({ doneAt: new Date(), lastError: null });
    await task({ shopDomain: OTHER });
    await task({ orderId: other.id, doneAt: new Date(), lastError: "elsewhere" });

    const got = await orderFiles(prisma, SHOP, o.id);
    expect(got.files.map((f) => f.id)).toEqual([first.id, second.id]);
    expect(got.files[0]).toEqual({
      id: first.id,
      purpose: "warehouse_photo",
      contentType: "image/png",
      size: 3,
      createdAt: new Date(t0),
    });
    expect(got.copying).toBe(2);
    expect(got.failed).toEqual(["the address answered HTTP 403"]);
    expect(await orderFiles(prisma, SHOP, "no-such-order")).toEqual({
      files: [],
      copying: 0,
      failed: [],
    });
  });
});
