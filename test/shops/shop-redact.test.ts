/**
 * shop/redact leaves nothing of the shop (issue 37), checked against the whole schema: every
 * table with a shop key (a `shop`, `shopDomain` or `domain` column) in prisma/schema.prisma gets
 * a row for the redacted shop and one for another shop, and so does every table that hangs off
 * one of them (by a relation, or an `<model>Id` column such as PaymentBatch.svcAccountId). After
 * the redact, none of the redacted shop's rows is left in any of them, and the other shop's rows
 * all are. A new table keyed by the shop that the redact forgets fails here by itself.
 * The bucket's objects of the shop go too (the S3 simulator).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { bucketFrom } from "../../app/archive/bucket.server";
import { saveFile } from "../../app/archive/files.server";
import { action as compliance } from "../../app/routes/webhooks.compliance";
import { eraseShopObjects } from "../../app/shops/redact.server";
import { recordInstall } from "../../app/shops/shops.server";
import { handlers } from "../../app/worker/registry.server";
import { Worker } from "../../app/worker/worker.server";
import { PNG_1PX } from "../helpers/file-server";
import { callRoute } from "../helpers/remix";
import { shopifyWebhookRequest } from "../helpers/shopify-webhook";
import { type S3Sim, startS3Sim } from "../sim/s3/server";

const GONE = "redacted.myshopify.com";
const KEPT = "stays.myshopify.com";
const SHOP_KEYS = ["shop", "shopDomain", "domain"];

interface Field {
  name: string;
  type: string;
  optional: boolean;
  list: boolean;
  defaulted: boolean;
  relation?: { fields: string[] };
}
interface Model {
  name: string;
  fields: Field[];
}

/** The models of prisma/schema.prisma, with what seeding a row needs to know. */
function schemaModels(): Model[] {
  const text = readFileSync(join(__dirname, "../../prisma/schema.prisma"), "utf8");
  const models: Model[] = [];
  for (const m of text.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const fields: Field[] = [];
    for (const line of m[2]!.split("\n")) {
      const f = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!f || line.trim().startsWith("//") || line.trim().startsWith("@@")) continue;
      const rel = /@relation\([^)]*fields:\s*\[([^\]]+)\]/.exec(f[5]!);
      fields.push({
        name: f[1]!,
        type: f[2]!,
        list: Boolean(f[3]),
        optional: Boolean(f[4]),
        defaulted: /@default\(|@updatedAt/.test(f[5]!),
        relation: rel ? { fields: rel[1]!.split(",").map((x) => x.trim()) } : undefined,
      });
    }
    models.push({ name: m[1]!, fields });
  }
  return models;
}

const MODELS = schemaModels();
const names = new Set(MODELS.map((m) => m.name));
const delegate = (model: string) =>
  (prisma as unknown as Record<string, { create(a: object): Promise<{ id: unknown }> }>)[
    model[0]!.toLowerCase() + model.slice(1)
  ]!;
const countOf = (model: string) =>
  (prisma as unknown as Record<string, { count(a: object): Promise<number> }>)[
    model[0]!.toLowerCase() + model.slice(1)
  ]!;

const shopKeyOf = (m: Model) =>
  m.fields.find((f) => SHOP_KEYS.includes(f.name) && f.type === "String");
const shopKeyed = MODELS.filter((m) => shopKeyOf(m));

/** The parent model each foreign-key column of a model points at. */
function parentsOf(m: Model): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of m.fields)
    if (f.relation && names.has(f.type)) for (const k of f.relation.fields) out.set(k, f.type);
  for (const f of m.fields) {
    const named = /^(\w+)Id$/.exec(f.name)?.[1];
    const model = named && named[0]!.toUpperCase() + named.slice(1);
    if (model && names.has(model) && !out.has(f.name)) out.set(f.name, model);
  }
  return out;
}
const children = MODELS.filter(
  (m) =>
    !shopKeyOf(m) && [...parentsOf(m).values()].some((p) => shopKeyed.some((s) => s.name === p)),
);

function valueOf(f: Field): unknown {
  switch (f.type) {
    case "String":
      return `${f.name}-${randomUUID()}`;
    case "Int":
      return 1;
    case "BigInt":
      return 1n;
    case "Float":
    case "Decimal":
      return 1;
    case "Boolean":
      return false;
    case "DateTime":
      return new Date();
    case "Json":
      return {};
    case "Bytes":
      return new Uint8Array([1]);
    default:
      throw new Error(`no seed value for ${f.name}: ${f.type}`);
  }
}

/** One row of the model, the shop key set to `shop` and each parent key to that shop's parent. */
async function seed(m: Model, shop: string, ids: Map<string, unknown>): Promise<unknown> {
  const parents = parentsOf(m);
  const data: Record<string, unknown> = {};
  for (const f of m.fields) {
    if (names.has(f.type) || f.list) continue;
    if (SHOP_KEYS.includes(f.name) && f.type === "String") data[f.name] = shop;
    else if (parents.has(f.name) && ids.has(`${shop}:${parents.get(f.name)}`))
      data[f.name] = ids.get(`${shop}:${parents.get(f.name)}`);
    else if (!f.optional && !f.defaulted) data[f.name] = valueOf(f);
  }
  const row = await delegate(m.name).create({ data });
  return (row as Record<string, unknown>).id ?? (row as Record<string, unknown>).domain;
}

beforeAll(async () => {
  for (const shop of [GONE, KEPT]) await recordInstall(prisma, shop, "read_orders");
});

describe("shop/redact", () => {
  it("finds the tables to check in the schema (the test itself can fail)", () => {
    expect(shopKeyed.map((m) => m.name)).toEqual(
      expect.arrayContaining(["Session", "Shop", "ShopOrder", "Dispute", "StoredFile", "Job"]),
    );
    expect(children.map((m) => m.name)).toEqual(
      expect.arrayContaining(["ShopOrderLine", "DisputeMessage", "RateBucket", "PaymentBatch"]),
    );
  });

  it("leaves no row of the shop in any table keyed by it or hanging off one; another shop keeps all", async () => {
    const ids = new Map<string, unknown>();
    for (const shop of [GONE, KEPT]) {
      for (const m of shopKeyed)
        if (m.name !== "Shop") ids.set(`${shop}:${m.name}`, await seed(m, shop, ids));
      ids.set(`${shop}:Shop`, shop);
      for (const m of children) ids.set(`${shop}:${m.name}`, await seed(m, shop, ids));
    }
    const res = await callRoute(
      compliance,
      shopifyWebhookRequest("https://app.test/webhooks/compliance", {
        topic: "shop/redact",
        shop: GONE,
        body: { shop_domain: GONE, shop_id: 1 },
      }),
    );
    expect(res.status).toBe(200);
    await new Worker({ prisma, handlers, concurrency: 2 }).drain();
    const left: string[] = [];
    const kept: string[] = [];
    for (const m of shopKeyed) {
      const key = shopKeyOf(m)!.name;
      const where = (shop: string) =>
        m.name === "Job" ? { [key]: shop, NOT: { kind: "shopify:shop/redact" } } : { [key]: shop };
      if ((await countOf(m.name).count({ where: where(GONE) })) > 0) left.push(m.name);
      if ((await countOf(m.name).count({ where: where(KEPT) })) === 0) kept.push(m.name);
    }
    for (const m of children) {
      // By its key to its parent (a row of this shop's, seeded above).
      const [fk, parent] = [...parentsOf(m)].find(([, p]) => shopKeyed.some((s) => s.name === p))!;
      const of = (shop: string) => ({ [fk]: ids.get(`${shop}:${parent}`) });
      if ((await countOf(m.name).count({ where: of(GONE) })) > 0) left.push(m.name);
      if ((await countOf(m.name).count({ where: of(KEPT) })) === 0) kept.push(m.name);
    }
    expect(left, "rows of the redacted shop left").toEqual([]);
    expect(kept, "tables where the other shop lost its rows").toEqual([]);
  });
});

describe("the shop's objects in the bucket", () => {
  let s3: S3Sim;
  beforeAll(async () => {
    s3 = await startS3Sim();
  });
  afterAll(async () => s3?.close());

  it("are deleted, the other shop's kept; none to delete without a bucket", async () => {
    const bucket = bucketFrom(s3.archiveUrl);
    for (const shop of [GONE, KEPT])
      await saveFile(
        prisma,
        {
          shopDomain: shop,
          purpose: "dispute_upload",
          name: "a.png",
          bytes: PNG_1PX,
          type: "image/png",
        },
        bucket,
      );
    expect(s3.objects.size).toBe(2);
    expect(await eraseShopObjects(prisma, GONE, bucket)).toBe(1);
    expect([...s3.objects.keys()].map((k) => k.split("/")[0])).toEqual([KEPT]);
    expect(s3.requests.filter((r) => r.method === "DELETE")).toEqual([
      expect.objectContaining({ status: 204 }),
    ]);
    expect(await eraseShopObjects(prisma, GONE, null)).toBe(0);
  });
});
