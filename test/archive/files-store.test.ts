/**
 * The files the app keeps (app/archive/files.server.ts), alone: kinds known by their first
 * bytes, the download's rules (addresses, redirects, status, size, kind), keeping a file once per
 * source in PostgreSQL or in a bucket (the S3 simulator), a dispute upload's public address and
 * its hour, the reply's headers, and the merchant's signed links. The archive's flow is in
 * test/archive/archive-flow.test.ts; redirects to private addresses in files-redirect.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketFrom } from "../../app/archive/bucket.server";
import { downloadFile } from "../../app/archive/download.server";
import {
  FileRefusedError,
  bytesOf,
  fileKind,
  fileLink,
  fileOfLink,
  fileResponse,
  publicFile,
  saveFile,
} from "../../app/archive/files.server";
import { config } from "../../app/config.server";
import { prisma } from "../../app/db.server";
import { PNG_1PX, publicDns, serveFiles } from "../helpers/file-server";
import { type S3Sim, startS3Sim } from "../sim/s3/server";

const SHOP = "files-store.myshopify.com";
let s3: S3Sim;
let files: Awaited<ReturnType<typeof serveFiles>>;
let trustedHost: string;
beforeAll(async () => {
  s3 = await startS3Sim();
  files = await serveFiles({ "/ok.png": { bytes: PNG_1PX } });
  trustedHost = new URL(files.url).host;
});
afterAll(async () => {
  await files?.close();
  await s3?.close();
});

const pad = (head: Buffer | string, at = 0) => {
  const b = Buffer.alloc(16);
  Buffer.from(head as string, "latin1").copy(b, at);
  return b;
};

describe("kinds of file", () => {
  it("each kind by its first bytes; too short or unknown is none", () => {
    const kind = (b: Buffer) => {
      const k = fileKind(b);
      return k && [k.type, k.ext, k.media];
    };
    expect(kind(pad("\xff\xd8\xff"))).toEqual(["image/jpeg", "jpg", "image"]);
    expect(kind(PNG_1PX)).toEqual(["image/png", "png", "image"]);
    expect(kind(pad("GIF89a"))).toEqual(["image/gif", "gif", "image"]);
    expect(kind(pad("RIFF\0\0\0\0WEBP"))).toEqual(["image/webp", "webp", "image"]);
    expect(kind(pad("RIFF\0\0\0\0WAVE"))).toBeUndefined();
    expect(kind(pad("ftypqt", 4))).toEqual(["video/quicktime", "mov", "video"]);
    expect(kind(pad("ftypisom", 4))).toEqual(["video/mp4", "mp4", "video"]);
    expect(kind(pad("\x1a\x45\xdf\xa3"))).toEqual(["video/webm", "webm", "video"]);
    expect(kind(pad("%PDF-1.7"))).toEqual(["application/pdf", "pdf", "document"]);
    expect(kind(pad("%PDF"))).toBeUndefined();
    expect(kind(pad("\xff\xd9"))).toBeUndefined();
    expect(kind(pad("\x00\xd8"))).toBeUndefined();
    expect(kind(pad("xPNG\r\n"))).toEqual(["image/png", "png", "image"]);
    expect(kind(pad("<html>"))).toBeUndefined();
    expect(kind(Buffer.from("%PDF-1.7 12"))).toBeUndefined(); // 11 bytes
    expect(kind(Buffer.from("%PDF-1.7 123"))).toEqual(["application/pdf", "pdf", "document"]);
  });
});

describe("downloads", () => {
  const get = (path: string, maxBytes = 1024) =>
    downloadFile(`${files.url}${path}`, { maxBytes, trustedHost });

  it("keeps to http(s), no user names, no private address unless trusted", async () => {
    const refused = async (address: string, why: string) => {
      const p = downloadFile(address, { maxBytes: 1024, trustedHost });
      await expect(p).rejects.toBeInstanceOf(FileRefusedError);
      await expect(p).rejects.toThrow(why);
    };
    await refused("not a url", "not a valid address");
    await refused("ftp://example.com/a.png", "only http and https addresses are fetched");
    await refused("file:///etc/passwd", "only http and https addresses are fetched");
    await refused(`http://user:pw@${trustedHost}/ok.png`, "addresses with a user name");
    await refused(`http://user@${trustedHost}/ok.png`, "addresses with a user name");
    await refused(`http://:pw@${trustedHost}/ok.png`, "addresses with a user name");
    for (const host of [
      "localhost",
      "a.localhost",
      "db.internal",
      "10.0.0.1",
      "127.0.0.1",
      "0.0.0.0",
      "169.254.1.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.0.1",
      "100.64.0.1",
      "100.127.0.1",
      "[::1]",
      "[fc00::1]",
      "[fd12::1]",
      "[fe80::1]",
      "[::]",
      "[::ffff:127.0.0.1]",
      "[::ffff:10.0.0.1]",
      "[64:ff9b::7f00:1]",
      "[fec0::1]",
      "[2002:7f00:1::1]",
      "192.0.0.1",
      "198.18.0.1",
      "203.0.113.9",
      "224.0.0.1",
      "255.255.255.255",
      "0x7f.1",
      "2130706433",
    ])
      await refused(`http://${host}/a.png`, "the address is not allowed");
    // The trusted host itself (with its port) is fetched.
    expect((await get("/ok.png")).type).toBe("image/png");
  });

  it("public addresses near the private ranges are fetched", async () => {
    const asked: string[] = [];
    const fetchImpl: typeof fetch = (input) => {
      asked.push(String(input));
      return Promise.resolve(new Response(new Uint8Array(PNG_1PX)));
    };
    const hosts = [
      "172.15.0.1",
      "172.32.0.1",
      "169.253.1.1",
      "169.255.1.1",
      "192.167.0.1",
      "192.169.0.1",
      "100.63.0.1",
      "100.128.0.1",
      "11.0.0.1",
      "126.0.0.1",
      "1.0.0.1",
      "[2606:4700::1]",
      "[fb00::1]",
      "[fe00::1]",
      "localhost.example.com",
      "internal.example.com",
      "mylocalhost",
    ];
    for (const h of hosts) {
      const got = await downloadFile(`http://${h}/a.png`, {
        maxBytes: 1024,
        fetchImpl,
        resolve: publicDns,
      });
      expect(got.ext, h).toBe("png");
    }
    expect(asked).toHaveLength(hosts.length);
  });

  it("follows 3 redirects, not 4; relative and absolute; any 3xx with a location", async () => {
    files.paths["/a1"] = { redirect: "/a2" };
    files.paths["/a2"] = { redirect: `${files.url}/a3` };
    files.paths["/a3"] = { redirect: "/ok.png" };
    expect((await get("/a1")).bytes.equals(PNG_1PX)).toBe(true);
    files.paths["/b1"] = { redirect: "/a1" };
    const before = files.hits.length;
    await expect(get("/b1")).rejects.toThrow("the address redirects more than 3 times");
    expect(files.hits.slice(before)).toEqual(["/b1", "/a1", "/a2", "/a3"]);
    // A 3xx without a location is an answer like any other non-200.
    files.paths["/304"] = { status: 304 };
    await expect(get("/304")).rejects.toThrow("the address answered HTTP 304");
  });

  it("a refusal is final, a passing failure is not; the status in plain words", async () => {
    for (const status of [400, 403, 404, 410]) {
      files.paths[`/s${status}`] = { status };
      const p = get(`/s${status}`);
      await expect(p).rejects.toBeInstanceOf(FileRefusedError);
      await expect(p).rejects.toThrow(`the address answered HTTP ${status}`);
    }
    for (const status of [408, 429, 500, 502, 503, 201, 204]) {
      files.paths[`/s${status}`] = { status };
      const e = await get(`/s${status}`).catch((x: unknown) => x);
      expect(e, String(status)).toBeInstanceOf(Error);
      expect(e, String(status)).not.toBeInstanceOf(FileRefusedError);
      expect((e as Error).message).toBe(`the address answered HTTP ${status}`);
    }
  });

  it("size: the limit itself passes, one byte more is refused, declared or not", async () => {
    const exact = Buffer.concat([PNG_1PX, Buffer.alloc(2 * 1024 * 1024 - PNG_1PX.length)]);
    files.paths["/exact"] = { bytes: exact };
    expect((await get("/exact", 2 * 1024 * 1024)).bytes.length).toBe(2 * 1024 * 1024);
    const over = Buffer.concat([exact, Buffer.alloc(1)]);
    files.paths["/over"] = { bytes: over };
    await expect(get("/over", 2 * 1024 * 1024)).rejects.toThrow("the file is larger than 2 MB");
    // Without a declared length (a stream), counted as it comes.
    const fetchImpl: typeof fetch = () =>
      Promise.resolve(
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new Uint8Array(over.subarray(0, 1024 * 1024)));
              c.enqueue(new Uint8Array(over.subarray(1024 * 1024)));
              c.close();
            },
          }),
        ),
      );
    const streamed = downloadFile("https://files.example.com/x", {
      maxBytes: 2 * 1024 * 1024,
      fetchImpl,
      resolve: publicDns,
    });
    await expect(streamed).rejects.toBeInstanceOf(FileRefusedError);
    await expect(streamed).rejects.toThrow("the file is larger than 2 MB");
    files.paths["/text"] = { bytes: Buffer.from("<html>just a page</html>") };
    await expect(get("/text")).rejects.toThrow("the file is not an image, a video or a PDF");
  });
});

describe("kept files", () => {
  it("in PostgreSQL: once per shop, purpose and source; the name cut to 200", async () => {
    const a = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "warehouse_photo",
        sourceUrl: "https://x.example/p1",
        name: "n".repeat(250),
        bytes: PNG_1PX,
        type: "image/png",
      },
      null,
    );
    expect(a).toMatchObject({
      shopDomain: SHOP,
      purpose: "warehouse_photo",
      orderId: null,
      sourceUrl: "https://x.example/p1",
      name: "n".repeat(200),
      contentType: "image/png",
      size: PNG_1PX.length,
      objectKey: null,
      publicToken: null,
      publicUntil: null,
    });
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(a.data!).equals(PNG_1PX)).toBe(true);
    expect((await bytesOf(a, null))!.equals(PNG_1PX)).toBe(true);
    const again = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "warehouse_photo",
        sourceUrl: "https://x.example/p1",
        bytes: Buffer.concat([PNG_1PX, Buffer.from("x")]),
        type: "image/png",
      },
      null,
    );
    expect(again.id).toBe(a.id);
    expect(again.size).toBe(PNG_1PX.length);
    // Another purpose or shop, or no source: a row of its own.
    const other = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "proof_of_delivery",
        sourceUrl: "https://x.example/p1",
        bytes: PNG_1PX,
        type: "image/png",
      },
      null,
    );
    expect(other.id).not.toBe(a.id);
    const n1 = await saveFile(
      prisma,
      { shopDomain: SHOP, purpose: "dispute_upload", bytes: PNG_1PX, type: "image/png" },
      null,
    );
    const n2 = await saveFile(
      prisma,
      { shopDomain: SHOP, purpose: "dispute_upload", bytes: PNG_1PX, type: "image/png" },
      null,
    );
    expect(n1.id).not.toBe(n2.id);
    expect(n1).toMatchObject({ name: null, sourceUrl: null });
  });

  it("in a bucket: under shop/purpose/sha256, read back from it; lost without it", async () => {
    const bucket = bucketFrom(s3.archiveUrl);
    const f = await saveFile(
      prisma,
      { shopDomain: SHOP, purpose: "proof_of_delivery", bytes: PNG_1PX, type: "image/png" },
      bucket,
    );
    expect(f.data).toBeNull();
    expect(f.objectKey).toBe(`${SHOP}/proof_of_delivery/${f.sha256}`);
    expect(s3.objects.get(f.objectKey!)).toEqual({ bytes: PNG_1PX, type: "image/png" });
    expect((await bytesOf(f, bucket))!.equals(PNG_1PX)).toBe(true);
    expect(await bytesOf(f, null)).toBeNull();
    expect(await bytesOf({ ...f, objectKey: null }, bucket)).toBeNull();
  });

  it("a dispute upload answers at its public address for its time, then not", async () => {
    const t0 = Date.now();
    const f = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "dispute_upload",
        bytes: PNG_1PX,
        type: "image/png",
        publicForMs: 3600_000,
      },
      null,
    );
    expect(f.publicToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const until = f.publicUntil!.getTime();
    expect(until).toBeGreaterThanOrEqual(t0 + 3600_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 3600_000);
    const got = await publicFile(prisma, f.publicToken!, until - 1, null);
    expect(got?.id).toBe(f.id);
    expect(got?.bytes.equals(PNG_1PX)).toBe(true);
    expect(await publicFile(prisma, f.publicToken!, until, null)).toBeNull();
    // One character changed (never to itself: a token may end in "x").
    const last = f.publicToken!.slice(-1) === "x" ? "y" : "x";
    expect(
      await publicFile(prisma, `${f.publicToken!.slice(0, 31)}${last}`, until - 1, null),
    ).toBeNull();
    expect(await publicFile(prisma, f.publicToken!.slice(0, 31), until - 1, null)).toBeNull();
    expect(await publicFile(prisma, `${f.publicToken!}x`, until - 1, null)).toBeNull();
    expect(await publicFile(prisma, `x${f.publicToken!}`, until - 1, null)).toBeNull();
    expect(await publicFile(prisma, "!".repeat(32), until - 1, null)).toBeNull();
    // Its bytes gone (a bucket file without the bucket): nothing served.
    const inBucket = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "dispute_upload",
        bytes: PNG_1PX,
        type: "image/png",
        publicForMs: 3600_000,
      },
      bucketFrom(s3.archiveUrl),
    );
    expect(await publicFile(prisma, inBucket.publicToken!, Date.now(), null)).toBeNull();
  });

  it("is answered with its type, never sniffed, cached privately, a safe file name", async () => {
    const res = fileResponse({ bytes: PNG_1PX, contentType: "image/png", name: 'a "b"/c.png' });
    expect(Object.fromEntries(res.headers)).toEqual({
      "content-type": "image/png",
      "content-length": String(PNG_1PX.length),
      "x-content-type-options": "nosniff",
      "cache-control": "private, max-age=3600",
      "content-security-policy": "default-src 'none'; sandbox",
      "content-disposition": 'inline; filename="a__b__c.png"',
    });
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG_1PX)).toBe(true);
    expect(
      fileResponse({ bytes: PNG_1PX, contentType: "image/png", name: null }).headers.get(
        "content-disposition",
      ),
    ).toBe('inline; filename="file"');
  });
});

describe("the merchant's links", () => {
  it("good for an hour or so (rounded up to 10 minutes), signed, for that file only", async () => {
    const f = await saveFile(
      prisma,
      { shopDomain: SHOP, purpose: "warehouse_photo", bytes: PNG_1PX, type: "image/png" },
      null,
    );
    const now = Date.parse("2026-11-27T10:03:00Z");
    const link = new URL(`http://app.test${fileLink(f.id, now)}`);
    expect(link.pathname).toBe(`/files/s/${f.id}`);
    const until = Number(link.searchParams.get("u"));
    expect(until).toBe(Date.parse("2026-11-27T11:10:00Z"));
    expect(fileLink(f.id, Date.parse("2026-11-27T10:00:00Z"))).toContain(
      `u=${Date.parse("2026-11-27T11:00:00Z")}`,
    );
    expect(fileLink(f.id, now)).toBe(fileLink(f.id, now, config.SHOPIFY_API_SECRET));
    const read = (search: URLSearchParams, at = now, id = f.id, secret?: string) =>
      fileOfLink(prisma, id, search, at, secret, null);
    expect((await read(link.searchParams))?.bytes.equals(PNG_1PX)).toBe(true);
    expect(await read(link.searchParams, until - 1)).not.toBeNull();
    expect(await read(link.searchParams, until)).toBeNull();
    // Not from too far ahead (a forged far future), nor with another secret or id.
    expect(await read(link.searchParams, until - 2 * 3600_000)).not.toBeNull();
    expect(await read(link.searchParams, until - 2 * 3600_000 - 1)).toBeNull();
    expect(await read(link.searchParams, now, f.id, "another-secret")).toBeNull();
    expect(await read(link.searchParams, now, "another-id")).toBeNull();
    const other = new URLSearchParams(link.searchParams);
    other.set("u", String(until + 600_000));
    expect(await read(other)).toBeNull();
    const shortMac = new URLSearchParams(link.searchParams);
    shortMac.set("m", link.searchParams.get("m")!.slice(1));
    expect(await read(shortMac)).toBeNull();
    expect(await read(new URLSearchParams({ u: String(until) }))).toBeNull();
    expect(await read(new URLSearchParams({ u: "soon", m: "x" }))).toBeNull();
    expect(await read(new URLSearchParams({ u: "1e400", m: link.searchParams.get("m")! }))).toBe(
      null,
    );
    // Signed for a file that is gone: nothing.
    const ghost = new URL(`http://app.test${fileLink("ghost-id", now)}`);
    expect(await read(ghost.searchParams, now, "ghost-id")).toBeNull();
  });
});
