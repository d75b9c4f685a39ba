/**
 * customers/redact leaves nothing of the customer in the orders it names (issue 37): the
 * customer columns of ShopOrder (every column the schema documents as the customer's, or the
 * address's: read from prisma/schema.prisma, so a new one that is not cleared fails here), the
 * orders' kept files (photos of the parcel and its label), their copies to make, and the
 * objects in the bucket; another customer's orders keep all of theirs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { bucketFrom } from "../../app/archive/bucket.server";
import { saveFile } from "../../app/archive/files.server";
import { queueArchive } from "../../app/archive/archive.server";
import { action as compliance } from "../../app/routes/webhooks.compliance";
import { eraseOrderFiles } from "../../app/shops/redact.server";
import { recordInstall } from "../../app/shops/shops.server";
import { handlers } from "../../app/worker/registry.server";
import { Worker } from "../../app/worker/worker.server";
import { PNG_1PX } from "../helpers/file-server";
import { callRoute } from "../helpers/remix";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";
import { type S3Sim, startS3Sim } from "../sim/s3/server";

const SHOP = "customer-redact.myshopify.com";

/**
 * ShopOrder's columns that hold the customer's data: named for the customer, the recipient or
 * the address shipped to.
 */
function customerColumns(): string[] {
  const text = readFileSync(join(__dirname, "../../prisma/schema.prisma"), "utf8");
  const body = /^model ShopOrder \{\n([\s\S]*?)^\}/m.exec(text)![1]!;
  return [...body.matchAll(/^\s+(\w+)\s+\w+\??/gm)]
    .map((m) => m[1]!)
    .filter((n) => /customer|recipient|shippedTo|address|email|phone/i.test(n));
}

async function order(n: number, customerId: string) {
  return prisma.shopOrder.create({
    data: {
      shopDomain: SHOP,
      shopifyOrderId: String(n),
      orderNumber: `CR-${n}`,
      customerId,
      customerName: `Customer ${customerId}`,
      customerEmail: `c${customerId}@example.com`,
      recipient: { name: `Customer ${customerId}`, address1: "1 Main St" },
      shippedTo: `fingerprint-${n}`,
    },
  });
}

async function filesOf(orderId: string, bucket: ReturnType<typeof bucketFrom> | null = null) {
  await saveFile(
    prisma,
    {
      shopDomain: SHOP,
      purpose: "proof_of_delivery",
      orderId,
      sourceUrl: `https://files.example.com/${orderId}.png`,
      bytes: Buffer.concat([PNG_1PX, Buffer.from(orderId)]),
      type: "image/png",
    },
    bucket,
  );
  await queueArchive(prisma, {
    shopDomain: SHOP,
    orderId,
    purpose: "warehouse_photo",
    urls: [`https://files.example.com/${orderId}-w.png`],
  });
}

beforeAll(async () => {
  await recordInstall(prisma, SHOP, "read_orders");
});

describe("customers/redact", () => {
  it("knows the customer columns from the schema (the test itself can fail)", () => {
    expect(customerColumns()).toEqual(
      expect.arrayContaining(["customerId", "customerName", "customerEmail", "recipient"]),
    );
  });

  it("clears the customer's columns and drops the orders' files; another customer keeps theirs", async () => {
    const [a, b, c] = [await order(1, "7"), await order(2, "99"), await order(3, "8")];
    for (const o of [a, b, c]) await filesOf(o.id);
    const res = await callRoute(
      compliance,
      shopifyWebhookRequest("https://app.test/webhooks/compliance", {
        topic: "customers/redact",
        shop: SHOP,
        // Order 2 is named by its id (its customer id differs: a guest checkout).
        body: { shop_domain: SHOP, shop_id: 1, customer: { id: 7 }, orders_to_redact: [2] },
      }),
    );
    expect(res.status).toBe(200);
    await new Worker({ prisma, handlers, concurrency: 2 }).drain();
    const cols = customerColumns();
    for (const o of [a, b]) {
      const row = (await prisma.shopOrder.findUniqueOrThrow({ where: { id: o.id } })) as Record<
        string,
        unknown
      >;
      for (const col of cols) expect(row[col], `${o.shopifyOrderId}.${col}`).toBeNull();
      expect(await prisma.storedFile.count({ where: { orderId: o.id } })).toBe(0);
      expect(await prisma.archiveTask.count({ where: { orderId: o.id } })).toBe(0);
    }
    const kept = (await prisma.shopOrder.findUniqueOrThrow({ where: { id: c.id } })) as Record<
      string,
      unknown
    >;
    for (const col of cols) expect(kept[col], `3.${col}`).not.toBeNull();
    expect(await prisma.storedFile.count({ where: { orderId: c.id } })).toBe(1);
    expect(await prisma.archiveTask.count({ where: { orderId: c.id } })).toBe(1);
    const job = await prisma.job.findFirstOrThrow({ where: { kind: "shopify:customers/redact" } });
    expect(job.result).toMatchObject({ ordersRedacted: 2, filesDeleted: 2, copiesDropped: 2 });
  });
});

describe("the orders' objects in the bucket", () => {
  let s3: S3Sim;
  beforeAll(async () => {
    s3 = await startS3Sim();
  });
  afterAll(async () => s3?.close());

  it("are deleted, except one another order's file still names", async () => {
    const bucket = bucketFrom(s3.archiveUrl);
    const [a, b] = [await order(11, "70"), await order(12, "80")];
    await filesOf(a.id, bucket);
    await filesOf(b.id, bucket);
    // The same photo kept for both orders: one object, two rows.
    const same = {
      shopDomain: SHOP,
      purpose: "warehouse_photo" as const,
      bytes: PNG_1PX,
      type: "image/png",
    };
    await saveFile(
      prisma,
      { ...same, orderId: a.id, sourceUrl: "https://files.example.com/s1" },
      bucket,
    );
    await saveFile(
      prisma,
      { ...same, orderId: b.id, sourceUrl: "https://files.example.com/s2" },
      bucket,
    );
    expect(s3.objects.size).toBe(3);
    expect(await eraseOrderFiles(prisma, SHOP, [a.id], bucket)).toEqual({
      files: 2,
      tasks: 1,
      objects: 1,
    });
    expect(s3.objects.size).toBe(2);
    expect(await prisma.storedFile.count({ where: { orderId: b.id } })).toBe(2);
    expect(await eraseOrderFiles(prisma, SHOP, [], bucket)).toEqual({
      files: 0,
      tasks: 0,
      objects: 0,
    });
  });
});
