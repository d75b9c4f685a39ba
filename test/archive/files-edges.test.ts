/**
 * The kept files' edges (app/archive/files.server.ts): a declared length over the limit refused
 * before the body is read, redirects only for 3xx answers that name a location, host names that
 * only look like private addresses, the order a file belongs to, a signed link to a file whose
 * bytes are gone, and the configured bucket (none in the tests).
 */
import { describe, expect, it } from "vitest";
import {
  FileRefusedError,
  archiveBucket,
  fileKind,
  fileLink,
  fileOfLink,
  saveFile,
} from "../../app/archive/files.server";
import { bucketFrom } from "../../app/archive/bucket.server";
import { downloadFile } from "../../app/archive/download.server";
import { prisma } from "../../app/db.server";
import { PNG_1PX, publicDns } from "../helpers/file-server";
import { startS3Sim } from "../sim/s3/server";

const SHOP = "files-edges.myshopify.com";
const MB = 1024 * 1024;

/** Answers from a table of address → Response maker, recording what was asked. */
function answering(table: Record<string, () => Response>) {
  const asked: string[] = [];
  const fetchImpl: typeof fetch = (input) => {
    const url = String(input);
    asked.push(url);
    const make = table[url];
    return Promise.resolve(make ? make() : new Response(null, { status: 404 }));
  };
  return { asked, fetchImpl };
}
const png = () => new Response(new Uint8Array(PNG_1PX));

describe("the declared length", () => {
  it("over the limit: refused before reading, the body let go; at the limit: read", async () => {
    let cancelled = false;
    const big = () =>
      new Response(
        new ReadableStream({
          pull(c) {
            c.enqueue(new Uint8Array(PNG_1PX));
          },
          cancel() {
            cancelled = true;
          },
        }),
        { headers: { "content-length": String(2 * MB) } },
      );
    const a = answering({ "https://f.example/big": big });
    const p = downloadFile("https://f.example/big", {
      maxBytes: MB,
      fetchImpl: a.fetchImpl,
      resolve: publicDns,
    });
    await expect(p).rejects.toBeInstanceOf(FileRefusedError);
    await expect(p).rejects.toThrow("the file is larger than 1 MB");
    expect(cancelled).toBe(true);
    // A small body that declares more than the limit is refused all the same.
    const liar = answering({
      "https://f.example/liar": () =>
        new Response(new Uint8Array(PNG_1PX), {
          headers: { "content-length": String(MB + 1) },
        }),
    });
    await expect(
      downloadFile("https://f.example/liar", {
        maxBytes: MB,
        fetchImpl: liar.fetchImpl,
        resolve: publicDns,
      }),
    ).rejects.toThrow("the file is larger than 1 MB");
    const exact = Buffer.concat([PNG_1PX, Buffer.alloc(MB - PNG_1PX.length)]);
    const ok = answering({
      "https://f.example/exact": () =>
        new Response(new Uint8Array(exact), { headers: { "content-length": String(MB) } }),
    });
    const got = await downloadFile("https://f.example/exact", {
      maxBytes: MB,
      fetchImpl: ok.fetchImpl,
      resolve: publicDns,
    });
    expect(got.bytes.length).toBe(MB);
  });
});

describe("redirects", () => {
  const redirect = (status: number, location: string) => () =>
    new Response(null, { status, headers: { location } });

  it("300 and 399 with a location are followed; 200 and 400 with one are not", async () => {
    for (const status of [300, 301, 302, 307, 308, 399]) {
      const a = answering({
        "https://f.example/r": redirect(status, "/photo.png"),
        "https://f.example/photo.png": png,
      });
      const got = await downloadFile("https://f.example/r", {
        maxBytes: MB,
        fetchImpl: a.fetchImpl,
        resolve: publicDns,
      });
      expect(got.ext, String(status)).toBe("png");
      expect(a.asked).toEqual(["https://f.example/r", "https://f.example/photo.png"]);
    }
    const at200 = answering({
      "https://f.example/r": () =>
        new Response(new Uint8Array(PNG_1PX), { headers: { location: "/elsewhere" } }),
    });
    expect(
      (
        await downloadFile("https://f.example/r", {
          maxBytes: MB,
          fetchImpl: at200.fetchImpl,
          resolve: publicDns,
        })
      ).ext,
    ).toBe("png");
    expect(at200.asked).toEqual(["https://f.example/r"]);
    const at400 = answering({ "https://f.example/r": redirect(400, "/photo.png") });
    await expect(
      downloadFile("https://f.example/r", {
        maxBytes: MB,
        fetchImpl: at400.fetchImpl,
        resolve: publicDns,
      }),
    ).rejects.toThrow("the address answered HTTP 400");
    expect(at400.asked).toEqual(["https://f.example/r"]);
  });
});

describe("host names", () => {
  it("only addresses are judged by their numbers; public IPv6 with fc or fe80 inside is fetched", async () => {
    const hosts = [
      "10.example.com",
      "192.168.example.com",
      "127.0.0.1.example.com",
      "[2606:4700:fc::1]",
      "[2001:fe80::1]",
      "[2a00:fd::1]",
    ];
    for (const h of hosts) {
      const a = answering({ [`http://${h}/a.png`]: png });
      const got = await downloadFile(`http://${h}/a.png`, {
        maxBytes: MB,
        fetchImpl: a.fetchImpl,
        resolve: publicDns,
      });
      expect(got.ext, h).toBe("png");
    }
    for (const h of ["[FC00::1]", "[FE80::1]", "LOCALHOST", "Db.Internal", "localhost."])
      await expect(
        downloadFile(`http://${h}/a.png`, {
          maxBytes: MB,
          fetchImpl: answering({}).fetchImpl,
          resolve: publicDns,
        }),
        h,
      ).rejects.toThrow("the address is not allowed");
  });

  it("refusals are FileRefusedError by name", async () => {
    const e = await downloadFile("ftp://x.example/a", { maxBytes: MB }).catch((x: unknown) => x);
    expect((e as Error).name).toBe("FileRefusedError");
  });
});

describe("kinds", () => {
  it("WebP needs both RIFF and WEBP", () => {
    const b = Buffer.alloc(16);
    Buffer.from("RIFX\0\0\0\0WEBP", "latin1").copy(b);
    expect(fileKind(b)).toBeUndefined();
  });
});

describe("kept files", () => {
  it("belong to their order", async () => {
    const order = await prisma.shopOrder.create({
      data: { shopDomain: SHOP, shopifyOrderId: "1", orderNumber: `edges-${Date.now()}` },
    });
    const f = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "proof_of_delivery",
        orderId: order.id,
        bytes: PNG_1PX,
        type: "image/png",
      },
      null,
    );
    expect(f.orderId).toBe(order.id);
  });

  it("a signed link to a file whose bytes cannot be had reads as nothing", async () => {
    const s3 = await startS3Sim();
    try {
      const f = await saveFile(
        prisma,
        { shopDomain: SHOP, purpose: "warehouse_photo", bytes: PNG_1PX, type: "image/png" },
        bucketFrom(s3.archiveUrl),
      );
      const now = Date.now();
      const link = new URL(`http://app.test${fileLink(f.id, now)}`);
      expect(await fileOfLink(prisma, f.id, link.searchParams, now, undefined, null)).toBeNull();
      const read = await fileOfLink(
        prisma,
        f.id,
        link.searchParams,
        now,
        undefined,
        bucketFrom(s3.archiveUrl),
      );
      expect(read?.bytes.equals(PNG_1PX)).toBe(true);
    } finally {
      await s3.close();
    }
  });

  it("no bucket is configured in the tests: the files live in PostgreSQL", () => {
    expect(archiveBucket()).toBeNull();
    expect(archiveBucket()).toBeNull();
  });
});
