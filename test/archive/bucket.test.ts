/**
 * The app's files in an S3-compatible bucket (ARCHIVE_S3_URL) instead of PostgreSQL, against a
 * local object store that checks Signature Version 4 on every request: archived and uploaded
 * files go to the bucket (the row keeps only the key), are read back for the merchant's link
 * and the service's copy, and a wrong secret is refused without the secret reaching an error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueArchive, runArchive } from "../../app/archive/archive.server";
import { BucketError, bucketFrom, parseBucketUrl } from "../../app/archive/bucket.server";
import { fileLink, fileOfLink, publicFile, saveFile } from "../../app/archive/files.server";
import { ConfigError, parseConfig } from "../../app/config.server";
import { prisma } from "../../app/db.server";
import { PNG_1PX, serveFiles } from "../helpers/file-server";
import { type S3Sim, startS3Sim } from "../sim/s3/server";

const SHOP = "bucket-test.myshopify.com";
let s3: S3Sim;
let files: Awaited<ReturnType<typeof serveFiles>>;
beforeAll(async () => {
  s3 = await startS3Sim();
  files = await serveFiles({ "/proof.png": { bytes: PNG_1PX } });
});
afterAll(async () => {
  await files?.close();
  await s3?.close();
});

describe("ARCHIVE_S3_URL", () => {
  it("is read with its region; a malformed one is refused without echoing the secret", () => {
    expect(
      parseBucketUrl("https://AK:se%2Fcret@s3.example.com/files?region=eu-west-1"),
    ).toMatchObject({
      bucket: "files",
      region: "eu-west-1",
      accessKeyId: "AK",
      secretAccessKey: "se/cret",
    });
    expect(parseBucketUrl("https://AK:S@s3.example.com/files").region).toBe("us-east-1");
    for (const bad of [
      "https://s3.example.com/files",
      "https://AK:TOPSECRET1@s3.example.com/",
      "https://AK:TOPSECRET1@s3.example.com/a/b",
      "ftp://AK:TOPSECRET1@s3.example.com/files",
    ]) {
      expect(() => parseBucketUrl(bad), bad).toThrow(BucketError);
      try {
        parseConfig({ ARCHIVE_S3_URL: bad });
        expect.unreachable(bad);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as Error).message).toMatch(/ARCHIVE_S3_URL/);
        expect((e as Error).message).not.toContain("TOPSECRET1");
      }
    }
  });
});

describe("files in the bucket", () => {
  it("an archived file goes to the bucket; the row keeps its key; the merchant's link reads it back", async () => {
    const bucket = bucketFrom(s3.archiveUrl);
    const order = await prisma.shopOrder.create({
      data: { shopDomain: SHOP, shopifyOrderId: "1", orderNumber: `bucket-${Date.now()}` },
    });
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: order.id,
      purpose: "proof_of_delivery",
      urls: [`${files.url}/proof.png?sig=1`],
    });
    const r = await runArchive(prisma, {
      trustedHostOf: async () => new URL(files.url).host,
      bucket,
    });
    expect(r).toMatchObject({ kept: 1 });
    const row = await prisma.storedFile.findFirstOrThrow({ where: { orderId: order.id } });
    expect(row.data).toBeNull();
    expect(row.objectKey).toBe(`${SHOP}/proof_of_delivery/${row.sha256}`);
    expect(s3.objects.get(row.objectKey!)).toEqual({ bytes: PNG_1PX, type: "image/png" });
    const link = new URL(`http://app.test${fileLink(row.id)}`);
    const read = await fileOfLink(prisma, row.id, link.searchParams, Date.now(), undefined, bucket);
    expect(read?.bytes.equals(PNG_1PX)).toBe(true);
    // Without the bucket configured, a bucket file cannot be read (and says so in the log).
    expect(
      await fileOfLink(prisma, row.id, link.searchParams, Date.now(), undefined, null),
    ).toBeNull();
  });

  it("a dispute upload in the bucket answers at its public address", async () => {
    const bucket = bucketFrom(s3.archiveUrl);
    const kept = await saveFile(
      prisma,
      {
        shopDomain: SHOP,
        purpose: "dispute_upload",
        name: "box.png",
        bytes: PNG_1PX,
        type: "image/png",
        publicForMs: 60_000,
      },
      bucket,
    );
    const f = await publicFile(prisma, kept.publicToken!, Date.now(), bucket);
    expect(f?.bytes.equals(PNG_1PX)).toBe(true);
    expect(await publicFile(prisma, kept.publicToken!, Date.now() + 61_000, bucket)).toBeNull();
  });

  it("a wrong secret is refused by the store; the copy is tried again later, the secret in no error", async () => {
    const wrong = s3.archiveUrl.replace(/:[^:@/]+@/, ":WRONGSECRET9@");
    const bucket = bucketFrom(wrong);
    const e = await bucket.put("x/y", PNG_1PX, "image/png").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BucketError);
    expect((e as Error).message).toMatch(/SignatureDoesNotMatch/);
    expect((e as Error).message).not.toContain("WRONGSECRET9");
    const order = await prisma.shopOrder.create({
      data: { shopDomain: SHOP, shopifyOrderId: "2", orderNumber: `bucket2-${Date.now()}` },
    });
    await queueArchive(prisma, {
      shopDomain: SHOP,
      orderId: order.id,
      purpose: "warehouse_photo",
      urls: [`${files.url}/proof.png?sig=2`],
    });
    const r = await runArchive(prisma, {
      trustedHostOf: async () => new URL(files.url).host,
      bucket,
    });
    expect(r).toMatchObject({ kept: 0, retrying: 1, gaveUp: 0 });
    const task = await prisma.archiveTask.findFirstOrThrow({ where: { orderId: order.id } });
    expect(task.lastError).toMatch(/SignatureDoesNotMatch/);
    expect(task.lastError).not.toContain("WRONGSECRET9");
    expect(await prisma.storedFile.count({ where: { orderId: order.id } })).toBe(0);
  });
});
