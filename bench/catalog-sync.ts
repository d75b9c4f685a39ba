/**
 * A full stock and price pass (issue 16) over a shop with N connected variants, end to end over
 * real HTTP (the e2e harness of test/fulfilment): every connected catalog product read again at
 * the service, every variant's inventory item read from Shopify once (variants matched by SKU),
 * and the stock set at the shop's location. Three passes:
 *
 *   cold  — nothing known yet: inventory items read, every quantity set;
 *   warm  — nothing changed: the catalog read again, nothing written to Shopify;
 *   churn — 10% of the variants' stock changed at the supplier: only those written.
 *
 * Prints one JSON object: wall time, service calls and the share of the account's limit the
 * catalog reads used, Shopify calls by operation, requested and actual points and the share of
 * the shop's restore rate, throttled replies (Shopify) and 1600200 replies (service).
 *
 *   npx tsx bench/catalog-sync.ts --variants 10000 --calls 50 --plan plus
 *
 * Uses a fresh schema on BENCH_DATABASE_URL (default: the local server's `test` database).
 */
import { parseArgs } from "node:util";
import { benchSchema } from "./harness-env";

const { values } = parseArgs({
  options: {
    variants: { type: "string", default: "10000" },
    calls: { type: "string", default: "50" },
    plan: { type: "string", default: "plus" },
  },
});
const VARIANTS = Number(values.variants);
const CALLS = Number(values.calls);
const PLANS: Record<string, number> = { standard: 100, advanced: 200, plus: 1000 };
const RESTORE = PLANS[String(values.plan)] ?? 0;
if (!RESTORE) throw new Error(`--plan is one of ${Object.keys(PLANS).join(", ")}`);

const fresh = await benchSchema("bench_cat");

const { startHarness, prisma } = await import("../test/fulfilment/harness");
const { startServiceSim } = await import("../test/sim/service/index");
const { closeDatabase } = await import("../app/db.server");
const { CATALOG_JOB } = await import("../app/catalog/job-kinds");
const { enqueue } = await import("../app/jobs/enqueue.server");

try {
  // A catalog large enough that every shop variant has its own catalog variant.
  const svc = await startServiceSim({
    allowLoopbackWebhooks: true,
    catalogSize: Math.ceil(VARIANTS / 2.5),
  });
  const h = await startHarness({
    shopDomain: "bench-catalog.myshopify.com",
    callsPerSecond: CALLS,
    workerConcurrency: 2,
    shopifyRestoreRate: RESTORE,
    svc,
    settings: { stockCountries: "CN,US", repriceOnCostChange: "flag" },
  });

  // The shop: one product per catalog product, its variants matched by SKU, stock 0 and tracked.
  const products = svc.state.catalog.products.filter((p) => !p.removed);
  const rows: {
    shopDomain: string;
    shopifyProductId: string;
    shopifyVariantId: string;
    sku: string;
    svcProductId: string;
    svcVid: string;
  }[] = [];
  for (const p of products) {
    if (rows.length >= VARIANTS) break;
    const live = p.variants.filter((v) => !v.removed).slice(0, VARIANTS - rows.length);
    if (live.length === 0) continue;
    const made = h.shop.addProduct(h.shopDomain, {
      title: p.nameEn,
      optionNames: ["Variant"],
      variants: live.map((v) => ({ sku: v.sku, price: "29.99", options: [v.key], inventory: 0 })),
    });
    made.variants.forEach((sv, i) =>
      rows.push({
        shopDomain: h.shopDomain,
        shopifyProductId: String(made.legacyId),
        shopifyVariantId: String(sv.legacyId),
        sku: sv.sku,
        svcProductId: p.pid,
        svcVid: live[i]!.vid,
      }),
    );
  }
  for (let i = 0; i < rows.length; i += 1000)
    await prisma.productConnection.createMany({ data: rows.slice(i, i + 1000) });
  const pids = new Set(rows.map((r) => r.svcProductId));
  h.worker.start();

  const svcCalls = () => svc.calls({ accountId: h.simAccountId });
  async function pass(name: string) {
    const s0 = svcCalls().length;
    const g0 = h.shop.graphqlCalls().length;
    const t0 = Date.now();
    const { id } = await enqueue(prisma, {
      kind: CATALOG_JOB.syncShop,
      payload: { shop: h.shopDomain },
      maxAttempts: 3,
    });
    for (;;) {
      const job = await prisma.job.findUniqueOrThrow({ where: { id } });
      if (job.state === "completed" || job.state === "dead") {
        const wallMs = Date.now() - t0;
        const sc = svcCalls().slice(s0);
        const gc = h.shop.graphqlCalls().slice(g0);
        const byOp: Record<string, number> = {};
        for (const c of gc) byOp[c.operationName ?? "?"] = (byOp[c.operationName ?? "?"] ?? 0) + 1;
        const reads = sc.filter((c) => c.op === "query");
        // The share of the limit while the catalog was being read (the writes to Shopify come
        // after, and are measured against Shopify's own limit).
        const readWindowMs = reads.length
          ? reads[reads.length - 1]!.at - reads[0]!.at + 1000 / CALLS
          : 0;
        const requested = gc.reduce((n, c) => n + (c.requestedQueryCost ?? 0), 0);
        const actual = gc.reduce((n, c) => n + (c.actualQueryCost ?? 0), 0);
        const result = job.result as { stockSet?: number; facts?: { products?: number } } | null;
        return {
          pass: name,
          state: job.state,
          wall_s: Math.round(wallMs / 100) / 10,
          service_calls: sc.length,
          service_catalog_reads: reads.length,
          service_read_window_s: Math.round(readWindowMs / 100) / 10,
          service_read_rate_per_s: readWindowMs
            ? Math.round((reads.length / (readWindowMs / 1000)) * 10) / 10
            : 0,
          pct_of_service_limit: readWindowMs
            ? Math.round((reads.length / (readWindowMs / 1000) / CALLS) * 1000) / 10
            : 0,
          service_1600200: sc.filter((c) => c.code === 1600200).length,
          shopify_calls: gc.length,
          shopify_calls_by_op: byOp,
          shopify_points_requested: requested,
          shopify_points_actual: actual,
          pct_of_shopify_restore_rate: Math.round((actual / (wallMs / 1000) / RESTORE) * 1000) / 10,
          shopify_throttled: gc.filter(
            (c) => c.requestedQueryCost !== null && c.actualQueryCost === null,
          ).length,
          stock_set: result?.stockSet ?? null,
          products_read: result?.facts?.products ?? null,
        };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const cold = await pass("cold");
  const warm = await pass("warm");
  // 10% of the variants change stock at the supplier; the facts are read again in full.
  let changed = 0;
  for (const r of rows) {
    if (changed >= Math.ceil(rows.length / 10)) break;
    const v = svc.state.catalog.variantByVid.get(r.svcVid)!;
    v.inventory.CN = (v.inventory.CN ?? 0) + 7;
    changed++;
  }
  await prisma.catalogVariant.updateMany({ data: { checkedAt: new Date(0) } });
  const churn = await pass("churn");
  const stocked = h.shop
    .products(h.shopDomain)
    .flatMap((p) => p.variants)
    .filter((v) => v.available !== null && v.available > 0).length;

  console.log(
    JSON.stringify(
      {
        variants: rows.length,
        catalog_products: pids.size,
        service_calls_per_s_limit: CALLS,
        shopify_restore_rate: RESTORE,
        variants_with_stock_in_shop: stocked,
        changed_at_supplier: changed,
        passes: [cold, warm, churn],
      },
      null,
      2,
    ),
  );
  await h.worker.stop();
  await h.close();
  await svc.close();
} finally {
  await closeDatabase();
  await fresh.drop();
}
