import { describe, expect, it } from "vitest";
import { collect, paginate, iterateListV2, walkDisputes } from "../../app/svc/pagination";
import type { Page } from "../../app/svc/schema-kit";
import type { CatalogResource, ListV2Query } from "../../app/svc/catalog.server";
import type { DisputeListQuery, DisputeRecord } from "../../app/svc/dispute-shapes";
import type { DisputesResource } from "../../app/svc/disputes.server";

describe("pagination helpers", () => {
  it("walks shape B by total and shape A by totalPages, stopping on short pages", async () => {
    const data = Array.from({ length: 23 }, (_, i) => i);
    const calls: number[] = [];
    const byTotal = (n: number, s: number): Promise<Page<number>> => {
      calls.push(n);
      return Promise.resolve({ items: data.slice((n - 1) * s, n * s), total: data.length });
    };
    expect(await collect(paginate(byTotal, { pageSize: 10 }))).toEqual(data);
    expect(calls).toEqual([1, 2, 3]);
    const byPages = (n: number, s: number) =>
      Promise.resolve({ items: data.slice((n - 1) * s, n * s), totalPages: 3 });
    expect(await collect(paginate(byPages, { pageSize: 10 }))).toHaveLength(23);
    const bare = (n: number, s: number) =>
      Promise.resolve({ items: data.slice((n - 1) * s, n * s) });
    expect(await collect(paginate(bare, { pageSize: 10 }))).toHaveLength(23);
    expect(await collect(paginate(bare, { pageSize: 5, maxPage: 2 }))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(await collect(paginate(bare, { pageSize: 5, maxRecords: 7 }))).toHaveLength(7);
  });

  it("listV2: size ≤ 100, page ≤ 1000, and never more than 6000 records", async () => {
    const queries: ListV2Query[] = [];
    const catalog = {
      listV2: async (q: ListV2Query) => {
        queries.push(q);
        // A service that claims far more than the cap.
        return {
          items: [
            {
              productList: Array.from({ length: q.size ?? 10 }, (_, i) => ({
                id: `${q.page}-${i}`,
              })),
              relatedCategoryList: [],
            },
          ],
          total: 6000,
          totalPages: 100000,
        };
      },
    } as unknown as CatalogResource;
    const products = await collect(iterateListV2(catalog, { keyWord: "x" }, 500));
    expect(products).toHaveLength(6000);
    expect(queries.every((q) => q.size === 100 && (q.page ?? 0) <= 1000)).toBe(true);
    expect(queries).toHaveLength(60);
  });

  it("walks disputes in overlapping ≤ 90-day windows, de-duplicated by id", async () => {
    const DAY = 24 * 3600_000;
    const from = Date.UTC(2026, 0, 1);
    const records: DisputeRecord[] = [0, 45, 89.99, 90, 135, 200, 250].map((d, i) => ({
      id: `d${i}`,
      createDate: new Date(from + d * DAY),
      productList: [],
    })) as unknown as DisputeRecord[];
    const windows: Array<[number, number]> = [];
    const disputes = {
      list: async (q: DisputeListQuery) => {
        expect(q.endDate! - q.startDate!).toBeLessThanOrEqual(90 * DAY);
        windows.push([q.startDate!, q.endDate!]);
        const hit = records.filter(
          (r) => r.createDate!.getTime() > q.startDate! && r.createDate!.getTime() < q.endDate!,
        );
        const s = q.pageSize!;
        return { items: hit.slice((q.pageNum! - 1) * s, q.pageNum! * s), total: hit.length };
      },
    } as unknown as DisputesResource;
    const out = await collect(walkDisputes(disputes, from, from + 250 * DAY, { pageSize: 2 }));
    expect(out.map((r) => r.id).sort()).toEqual(["d0", "d1", "d2", "d3", "d4", "d5", "d6"]);
    // Consecutive windows overlap.
    for (let i = 1; i < windows.length; i++)
      expect(windows[i]![0]).toBeLessThan(windows[i - 1]![1]);
  });
});
