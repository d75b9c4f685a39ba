/**
 * Proof of delivery and warehouse photos archived, over HTTP against the service simulator: the
 * tracking sees an order delivered, asks for its proof, and the archive job copies the file into
 * the app's own storage; the scan finds warehouse photos of paid orders and proof the tracking
 * missed; the copies are still shown after the service's addresses stop answering. The copy's
 * rules: retried after a failure that may pass, given up on a refusal, size and type limits,
 * no private-network addresses, at most 3 redirects; the merchant's links are signed and expire.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ARCHIVE_MAX_ATTEMPTS,
  askAndQueue,
  orderFiles,
  ordersMissing,
  queueArchive,
  runArchive,
} from "../../app/archive/archive.server";
import { fileLink } from "../../app/archive/files.server";
import { loader as signedFileRoute } from "../../app/routes/files.s.$id";
import { JPEG_1PX } from "../sim/service/files";
import { PNG_1PX, serveFiles } from "../helpers/file-server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "archive-flow.myshopify.com", balance: "2000.00" });
});
afterAll(async () => h?.close());

const svcHost = async () => new URL(h.svc.url).host;

/** An order placed and paid through the pipeline (webhooks flowing). */
async function paidOrder(tag: string) {
  const p = await h.connectedProduct(`${tag} vase`, "15.00");
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("PAID");
  return row;
}

/** The bytes the app serves for a kept file through the merchant's signed link. */
async function served(id: string, link = fileLink(id)) {
  const res = await signedFileRoute({
    request: new Request(`http://app.test${link}`),
    params: { id },
    context: {},
  } as never);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), res };
}

describe("proof of delivery", () => {
  it("is copied when the order is delivered and shown after the service's link expires", async () => {
    const row = await paidOrder("POD");
    h.svc.ship(row.svcOrderId!, { trackNumber: "POD-TRK-1" });
    await h.settle();
    h.svc.deliver(row.svcOrderId!);
    await h.settle();
    expect((await prisma.shopOrder.findUniqueOrThrow({ where: { id: row.id } })).state).toBe(
      "DELIVERED",
    );
    const kept = await orderFiles(prisma, h.shopDomain, row.id);
    const proof = kept.files.filter((f) => f.purpose === "proof_of_delivery");
    expect(proof).toHaveLength(1);
    expect(proof[0]).toMatchObject({ contentType: "image/jpeg", size: JPEG_1PX.length });
    expect(kept.copying).toBe(0);

    // The service's link stops answering; the app's copy does not.
    const task = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: row.id } });
    h.svc.expireFileLinks();
    try {
      expect((await fetch(task.sourceUrl)).status).toBe(403);
      const copy = await served(proof[0]!.id);
      expect(copy.status).toBe(200);
      expect(copy.bytes.equals(JPEG_1PX)).toBe(true);
      expect(copy.res.headers.get("content-type")).toBe("image/jpeg");
      expect(copy.res.headers.get("x-content-type-options")).toBe("nosniff");
      // Asked again (the scan), the same address is not copied twice.
      expect(
        await queueArchive(prisma, {
          shopDomain: h.shopDomain,
          orderId: row.id,
          purpose: "proof_of_delivery",
          urls: [task.sourceUrl],
        }),
      ).toBe(0);
    } finally {
      h.svc.expireFileLinks(false);
    }
  });

  it("missed by the tracking (the service failed then), the scan finds and copies it", async () => {
    const row = await paidOrder("MISS");
    h.svc.ship(row.svcOrderId!, { trackNumber: "MISS-TRK-1" });
    await h.settle();
    h.svc.setFaults({ ops: ["getProofOfDelivery"], rateBusy: 1 });
    try {
      h.svc.deliver(row.svcOrderId!);
      await h.settle();
    } finally {
      h.svc.clearFaults();
    }
    expect((await orderFiles(prisma, h.shopDomain, row.id)).files).toHaveLength(0);
    const missing = await ordersMissing(prisma, h.accountId, "proof_of_delivery");
    expect(missing).toContain(row.id);
    expect(await askAndQueue(prisma, h.client, h.shopDomain, "proof_of_delivery", missing)).toBe(1);
    expect(await runArchive(prisma, { trustedHostOf: svcHost })).toMatchObject({ kept: 1 });
    expect((await orderFiles(prisma, h.shopDomain, row.id)).files).toHaveLength(1);
    expect(await ordersMissing(prisma, h.accountId, "proof_of_delivery")).not.toContain(row.id);
  });
});

describe("warehouse photos", () => {
  it("of a paid order are found by the scan, copied, and kept when the link expires", async () => {
    const row = await paidOrder("PHOTO");
    const missing = await ordersMissing(prisma, h.accountId, "warehouse_photo");
    expect(missing).toContain(row.id);
    await askAndQueue(prisma, h.client, h.shopDomain, "warehouse_photo", missing);
    await runArchive(prisma, { trustedHostOf: svcHost });
    const files = (await orderFiles(prisma, h.shopDomain, row.id)).files;
    expect(files.map((f) => f.purpose)).toEqual(["warehouse_photo"]);
    h.svc.expireFileLinks();
    try {
      const copy = await served(files[0]!.id);
      expect(copy.bytes.equals(JPEG_1PX)).toBe(true);
    } finally {
      h.svc.expireFileLinks(false);
    }
    expect(await ordersMissing(prisma, h.accountId, "warehouse_photo")).not.toContain(row.id);
  });
});

describe("the copy's rules", () => {
  it("retries what may pass, gives up on refusals, and keeps to size, type and address limits", async () => {
    let flaky = 0;
    const big = Buffer.concat([PNG_1PX, Buffer.alloc(20 * 1024 * 1024)]);
    const files = await serveFiles({
      "/ok": { bytes: PNG_1PX },
      "/gone": { status: 403 },
      "/text": { bytes: Buffer.from("<html>not a photo</html>") },
      "/big": { bytes: big },
      "/r1": { redirect: "/r2" },
      "/r2": { redirect: "/r3" },
      "/r3": { redirect: "/r4" },
      "/r4": { redirect: "/ok" },
    });
    // The flaky path: 503 twice, then the file.
    files.paths["/flaky"] = { status: 503 };
    const row = await paidOrder("RULES");
    const urls = ["ok", "gone", "text", "big", "r1", "flaky"].map((p) => `${files.url}/${p}`);
    urls.push("http://10.1.2.3/internal.png");
    try {
      await queueArchive(prisma, {
        shopDomain: h.shopDomain,
        orderId: row.id,
        purpose: "warehouse_photo",
        urls,
      });
      const host = async () => new URL(files.url).host;
      let now = Date.now();
      const first = await runArchive(prisma, { trustedHostOf: host, now });
      expect(first).toMatchObject({ kept: 1, retrying: 1, gaveUp: 5 });
      const tasks = await prisma.archiveTask.findMany({ where: { orderId: row.id } });
      const error = (p: string) => tasks.find((t) => t.sourceUrl.endsWith(p))!.lastError;
      expect(error("/gone")).toMatch(/HTTP 403/);
      expect(error("/text")).toMatch(/not an image/);
      expect(error("/big")).toMatch(/larger than 20 MB/);
      expect(error("/r1")).toMatch(/more than 3 times/);
      expect(error("internal.png")).toBe("the address is not allowed");
      expect(files.hits.filter((p) => p === "/internal.png")).toHaveLength(0);
      // Not due yet: nothing runs; due: tried again.
      expect(await runArchive(prisma, { trustedHostOf: host, now })).toMatchObject({
        kept: 0,
        retrying: 0,
      });
      now += 60_000;
      expect(await runArchive(prisma, { trustedHostOf: host, now })).toMatchObject({ retrying: 1 });
      files.paths["/flaky"] = { bytes: PNG_1PX };
      now += 5 * 60_000;
      expect(await runArchive(prisma, { trustedHostOf: host, now })).toMatchObject({ kept: 1 });
      expect(files.hits.filter((p) => p === "/flaky")).toHaveLength(3);
      flaky = (await orderFiles(prisma, h.shopDomain, row.id)).files.length;
      expect(flaky).toBe(2);
      // A source that never comes back is given up after the last attempt.
      files.paths["/down"] = { status: 502 };
      await queueArchive(prisma, {
        shopDomain: h.shopDomain,
        orderId: row.id,
        purpose: "warehouse_photo",
        urls: [`${files.url}/down`],
      });
      for (let i = 0; i < ARCHIVE_MAX_ATTEMPTS; i++) {
        now += 13 * 3600_000;
        await runArchive(prisma, { trustedHostOf: host, now });
      }
      const down = await prisma.archiveTask.findFirstOrThrow({
        where: { sourceUrl: `${files.url}/down` },
      });
      expect(down.attempts).toBe(ARCHIVE_MAX_ATTEMPTS);
      expect(down.doneAt).not.toBeNull();
      expect((await orderFiles(prisma, h.shopDomain, row.id)).failed.length).toBe(6);
    } finally {
      await files.close();
    }
  });

  it("asks again for an order whose copies all failed (its link expired), not for one being copied", async () => {
    const files = await serveFiles({ "/expired": { status: 403 }, "/slow": { status: 503 } });
    try {
      const gone = await paidOrder("EXPIRED");
      const waiting = await paidOrder("WAITING");
      for (const [o, path] of [
        [gone, "/expired"],
        [waiting, "/slow"],
      ] as const) {
        await queueArchive(prisma, {
          shopDomain: h.shopDomain,
          orderId: o.id,
          purpose: "warehouse_photo",
          urls: [`${files.url}${path}`],
        });
      }
      await runArchive(prisma, { trustedHostOf: async () => new URL(files.url).host });
      const missing = await ordersMissing(prisma, h.accountId, "warehouse_photo");
      expect(missing).toContain(gone.id);
      expect(missing).not.toContain(waiting.id);
      // Asked again, the service's address is copied.
      await askAndQueue(prisma, h.client, h.shopDomain, "warehouse_photo", [gone.id]);
      await runArchive(prisma, { trustedHostOf: svcHost, now: Date.now() });
      expect((await orderFiles(prisma, h.shopDomain, gone.id)).files).toHaveLength(1);
      expect(await ordersMissing(prisma, h.accountId, "warehouse_photo")).not.toContain(gone.id);
    } finally {
      await files.close();
    }
  });

  it("serves a kept file only by a genuine, unexpired link", async () => {
    const f = await prisma.storedFile.findFirstOrThrow({ where: { shopDomain: h.shopDomain } });
    const link = new URL(`http://app.test${fileLink(f.id)}`);
    expect((await served(f.id)).status).toBe(200);
    const forged = new URL(link);
    forged.searchParams.set("m", "x".repeat(43));
    expect((await served(f.id, forged.pathname + forged.search)).status).toBe(404);
    const longer = new URL(link);
    longer.searchParams.set("u", String(Number(link.searchParams.get("u")) + 60_000));
    expect((await served(f.id, longer.pathname + longer.search)).status).toBe(404);
    const old = fileLink(f.id, Date.now() - 2 * 3600_000);
    expect((await served(f.id, old)).status).toBe(404);
    const other = await prisma.storedFile.findFirstOrThrow({ where: { NOT: { id: f.id } } });
    expect((await served(other.id, link.pathname + link.search)).status).toBe(404);
  });
});
