/**
 * Dispute uploads past their hour are deleted (issue 37): the service copied each when the
 * dispute was sent, and the address it copied from no longer answers, so nothing reads the
 * bytes again. Their objects in the bucket go first, but one another file still names (the
 * same bytes uploaded again); archive files (proof of delivery) stay. The pass is a recurring
 * job of the worker.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { ARCHIVE_JOB } from "../../app/archive/archive.server";
import { bucketFrom } from "../../app/archive/bucket.server";
import { pruneUploads, saveFile } from "../../app/archive/files.server";
import { handlers, recurringJobs } from "../../app/worker/registry.server";
import { PNG_1PX } from "../helpers/file-server";
import { type S3Sim, startS3Sim } from "../sim/s3/server";

const HOUR = 3600_000;
const GIF_1PX = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

let s3: S3Sim;
beforeAll(async () => {
  s3 = await startS3Sim();
});
afterAll(async () => s3?.close());

const upload = (
  shop: string,
  bytes: Buffer,
  hours: number,
  bucket: ReturnType<typeof bucketFrom> | null,
) =>
  saveFile(
    prisma,
    {
      shopDomain: shop,
      purpose: "dispute_upload",
      name: "photo",
      bytes,
      type: "image/png",
      publicForMs: hours * HOUR,
    },
    bucket,
  );

describe("dispute uploads past their hour", () => {
  it("are deleted with their objects; a shared object and archive files stay", async () => {
    const bucket = bucketFrom(s3.archiveUrl);
    const shop = `prune-${randomUUID().slice(0, 8)}.myshopify.com`;
    const early = await upload(shop, PNG_1PX, 1, bucket);
    const again = await upload(shop, PNG_1PX, 3, bucket); // the same bytes: one object
    const other = await upload(shop, GIF_1PX, 1, bucket);
    const proof = await saveFile(
      prisma,
      {
        shopDomain: shop,
        purpose: "proof_of_delivery",
        name: "pod",
        bytes: GIF_1PX,
        type: "image/gif",
      },
      bucket,
    );
    const keys = () => [...s3.objects.keys()].filter((k) => k.startsWith(`${shop}/`)).sort();
    expect(keys()).toEqual([early.objectKey, other.objectKey, proof.objectKey].sort());
    const left = async () =>
      (await prisma.storedFile.findMany({ where: { shopDomain: shop }, select: { id: true } }))
        .map((f) => f.id)
        .sort();

    // Within the hour: nothing goes.
    expect(await pruneUploads(prisma, Date.now(), bucket)).toEqual({ files: 0, objects: 0 });
    expect(await left()).toHaveLength(4);

    // Two hours on: the two one-hour uploads go; their bytes stay while `again` names them.
    expect(await pruneUploads(prisma, Date.now() + 2 * HOUR, bucket)).toEqual({
      files: 2,
      objects: 1,
    });
    expect(await left()).toEqual([again.id, proof.id].sort());
    expect(keys()).toEqual([again.objectKey, proof.objectKey].sort());

    // Four hours on: the last upload and its object; the proof of delivery stays.
    expect(await pruneUploads(prisma, Date.now() + 4 * HOUR, bucket)).toEqual({
      files: 1,
      objects: 1,
    });
    expect(await left()).toEqual([proof.id]);
    expect(keys()).toEqual([proof.objectKey]);
  });

  it("without a bucket the rows (and their bytes) go", async () => {
    const shop = `prune-db-${randomUUID().slice(0, 8)}.myshopify.com`;
    await upload(shop, PNG_1PX, 1, null);
    expect(await pruneUploads(prisma, Date.now() + 2 * HOUR, null)).toEqual({
      files: 1,
      objects: 0,
    });
    expect(await prisma.storedFile.count({ where: { shopDomain: shop } })).toBe(0);
  });

  it("runs hourly in the worker", () => {
    expect(recurringJobs).toContainEqual({ kind: ARCHIVE_JOB.pruneUploads, everyMs: HOUR });
    expect(handlers[ARCHIVE_JOB.pruneUploads]).toBeTypeOf("function");
  });
});
