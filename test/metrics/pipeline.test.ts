/**
 * Metrics of real work: an order placed, paid and tracked over real HTTP against the
 * simulators, then scraped. The service calls the metrics count must be the calls the service
 * simulator saw, operation by operation and code by code (1600200 included, injected through
 * its fault knobs); and the jobs run in their log context, with the order added by the use case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentLogContext, type LogContext } from "../../app/log-context.server";
import { SvcRateLimitError } from "../../app/svc/errors";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";
import { type Sample, scrape, total, value } from "./scrape";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "metrics-pipeline.myshopify.com", balance: "500.00" });
});
afterAll(async () => h?.close());

/** Counts of `name` by one label, minus what `before` had. */
function deltaBy(before: Sample[], after: Sample[], name: string, label: string, where = {}) {
  const out = new Map<string, number>();
  for (const s of after.filter((x) => x.name === name)) {
    if (!Object.entries(where).every(([k, v]) => s.labels[k] === v)) continue;
    const d = s.value - value(before, name, s.labels);
    if (d !== 0) out.set(s.labels[label]!, (out.get(s.labels[label]!) ?? 0) + d);
  }
  return out;
}

describe("metrics of the fulfilment loop", () => {
  it("count the service calls as the service saw them, the Shopify calls, the jobs and the orders", async () => {
    const contexts: LogContext[] = [];
    const svcFor = h.deps.svcFor;
    h.deps.svcFor = (accountId) => {
      contexts.push(currentLogContext());
      return svcFor(accountId);
    };
    const simCallsBefore = h.svc.calls().length;
    const before = await scrape();

    const tee = await h.connectedProduct("Metrics Tee", "19.00");
    const placed = await h.order([{ product: tee, quantity: 1 }]);
    await h.settle();
    const row = await h.row(placed.legacyId);
    expect(row.state).toBe("PAID");
    const after = await scrape();

    // Every call the simulator answered, by "operation result", is counted once.
    const seen = new Map<string, number>();
    for (const c of h.svc.calls().slice(simCallsBefore)) {
      const key = `${c.op} ${c.code ?? `http_${c.httpStatus}`}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const counted = new Map<string, number>();
    for (const s of after.filter((x) => x.name === "dropship_svc_calls_total")) {
      const d = s.value - value(before, s.name, s.labels);
      if (d > 0) counted.set(`${s.labels.operation} ${s.labels.result}`, d);
    }
    expect(counted).toEqual(seen);
    expect(counted.get("createOrderV3 200")).toBe(1);
    expect(counted.get("payBalanceV2 200")).toBe(1);
    // Each call took a slot of the shared limiter first, and each has a duration.
    const calls = [...counted.values()].reduce((a, b) => a + b, 0);
    const waits = deltaBy(before, after, "dropship_svc_limiter_wait_seconds_count", "bucket");
    expect([...waits.values()].reduce((a, b) => a + b, 0)).toBe(calls);
    expect(waits.get("op:createOrderV3")).toBe(1);
    const timed = deltaBy(before, after, "dropship_svc_call_duration_seconds_count", "operation");
    expect(timed.get("createOrderV3")).toBe(1);

    // Shopify Admin calls (the order read, the fulfilment orders…) answered ok.
    const shop = deltaBy(before, after, "dropship_shopify_admin_calls_total", "outcome");
    expect(shop.get("ok")).toBeGreaterThan(0);
    expect([...shop.keys()]).toEqual(["ok"]);

    // The jobs ran: the order's delivery job (which placed it) completed once, with no place job
    // of its own; every run was timed.
    const jobs = deltaBy(before, after, "dropship_jobs_total", "kind", { outcome: "completed" });
    expect(jobs.get("shopify:orders/paid")).toBe(1);
    expect(jobs.get("fulfilment.place")).toBeUndefined();
    expect(jobs.get("fulfilment.pay")).toBeGreaterThanOrEqual(1);
    const runs = total(after, "dropship_jobs_total") - total(before, "dropship_jobs_total");
    const timedRuns =
      total(after, "dropship_job_duration_seconds_count") -
      total(before, "dropship_job_duration_seconds_count");
    expect(timedRuns).toBe(runs);

    // The orders gauge reads the rows.
    const paid = await prisma.shopOrder.count({ where: { state: "PAID" } });
    expect(value(after, "dropship_orders", { state: "PAID" })).toBe(paid);
    expect(paid).toBeGreaterThanOrEqual(1);

    // The delivery job asked for its service client inside its context, with the order added.
    const place = contexts.find((c) => c.jobKind === "shopify:orders/paid");
    expect(place).toMatchObject({ shop: h.shopDomain, orderId: row.id });
    expect(place?.jobId).toMatch(/^\d+$/);
    const pay = contexts.find((c) => c.jobKind === "fulfilment.pay");
    expect(pay).toMatchObject({ shop: h.shopDomain });
    h.deps.svcFor = svcFor;
  });

  it("count 1600200 refusals by operation and by limiter bucket, and the success after them", async () => {
    const before = await scrape();
    const simBefore = h.svc.calls({ op: "getBalance" }).length;
    h.svc.setFaults({ rateLimited: 1, ops: ["getBalance"] });
    try {
      await expect(h.client.payment.getBalance()).rejects.toBeInstanceOf(SvcRateLimitError);
    } finally {
      h.svc.setFaults({});
    }
    await h.client.payment.getBalance();
    const after = await scrape();

    const refused = h.svc.calls({ op: "getBalance" }).slice(simBefore);
    const limited = refused.filter((c) => c.code === 1600200).length;
    // The harness's client tries a query three times.
    expect(limited).toBe(3);
    const results = deltaBy(before, after, "dropship_svc_calls_total", "result", {
      operation: "getBalance",
    });
    expect(results).toEqual(
      new Map([
        ["1600200", limited],
        ["200", 1],
      ]),
    );
    const buckets = deltaBy(before, after, "dropship_svc_rate_limited_total", "bucket");
    expect(buckets).toEqual(new Map([["op:getBalance", limited]]));
  });
});
