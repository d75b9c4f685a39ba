/**
 * Async iterators over the two pagination shapes (normalised to `Page<T>` by the schemas), the
 * dispute-list window walk and helpers.
 */
import type { Page } from "./schema-kit";
import { LIST_V2_LIMITS, type CatalogResource, type ListV2Query } from "./catalog.server";
import { type ProductSummaryV2 } from "./catalog-shapes";
import { DISPUTE_WINDOW_MAX_MS, type DisputeListQuery, type DisputeRecord } from "./dispute-shapes";
import type { DisputesResource } from "./disputes.server";

export interface PaginateOptions {
  pageSize: number;
  firstPage?: number;
  /** Highest page number the operation accepts. */
  maxPage?: number;
  /** Stop after this many records (the service's cap). */
  maxRecords?: number;
}

/** Pages through any paged operation; stops on an empty or short page, the total, or the caps. */
export async function* paginate<T>(
  fetchPage: (pageNum: number, pageSize: number) => Promise<Page<T>>,
  opts: PaginateOptions,
): AsyncGenerator<T, void, undefined> {
  let pageNum = opts.firstPage ?? 1;
  let seen = 0;
  const maxRecords = opts.maxRecords ?? Number.POSITIVE_INFINITY;
  for (;;) {
    if (opts.maxPage !== undefined && pageNum > opts.maxPage) return;
    const p = await fetchPage(pageNum, opts.pageSize);
    for (const item of p.items) {
      if (seen >= maxRecords) return;
      seen++;
      yield item;
    }
    if (p.items.length === 0) return;
    if (p.totalPages !== undefined && pageNum >= p.totalPages) return;
    if (p.total !== undefined && seen >= Math.min(p.total, maxRecords)) return;
    if (p.total === undefined && p.totalPages === undefined && p.items.length < opts.pageSize)
      return;
    if (seen >= maxRecords) return;
    pageNum++;
  }
}

/** Every product of a listV2 search, honouring page ≤ 1000, size ≤ 100 and the 6000 cap. */
export async function* iterateListV2(
  catalog: CatalogResource,
  query: Omit<ListV2Query, "page" | "size"> = {},
  size: number = LIST_V2_LIMITS.maxSize,
): AsyncGenerator<ProductSummaryV2, void, undefined> {
  const pageSize = Math.min(Math.max(1, size), LIST_V2_LIMITS.maxSize);
  let count = 0;
  // `content` holds groups of products; totalRecords counts products (capped at 6000).
  for (let page = 1; page <= LIST_V2_LIMITS.maxPage; page++) {
    const p = await catalog.listV2({ ...query, page, size: pageSize });
    const products = p.items.flatMap((g) => g.productList);
    for (const product of products) {
      if (count >= LIST_V2_LIMITS.maxRecords) return;
      count++;
      yield product;
    }
    const limit = Math.min(p.total ?? Number.POSITIVE_INFINITY, LIST_V2_LIMITS.maxRecords);
    if (products.length === 0 || count >= limit) return;
    if (p.totalPages !== undefined && page >= p.totalPages) return;
    if (p.total === undefined && p.totalPages === undefined && products.length < pageSize) return;
  }
}

export interface DisputeWalkOptions {
  /** Window length (default and maximum 90 days). */
  windowMs?: number;
  /** Overlap between consecutive windows (default 1 hour): the bounds are exclusive. */
  overlapMs?: number;
  pageSize?: number;
  filter?: Omit<DisputeListQuery, "startDate" | "endDate" | "pageNum" | "pageSize">;
}

/**
 * Every dispute created in [from, to]: creation-date windows of at most 90 days, overlapping
 * (both bounds are exclusive at the service), each paged through, de-duplicated by dispute id.
 */
export async function* walkDisputes(
  disputes: DisputesResource,
  from: number,
  to: number,
  opts: DisputeWalkOptions = {},
): AsyncGenerator<DisputeRecord, void, undefined> {
  const overlap = opts.overlapMs ?? 3600_000;
  const windowMs = Math.min(opts.windowMs ?? DISPUTE_WINDOW_MAX_MS, DISPUTE_WINDOW_MAX_MS);
  if (windowMs <= overlap) throw new Error("window must be longer than the overlap");
  const seen = new Set<string>();
  // Exclusive bounds: start one ms early so `from` itself is included.
  let start = from - 1;
  const end = to + 1;
  while (start < end) {
    const stop = Math.min(start + windowMs, end);
    const records = paginate(
      (pageNum, pageSize) =>
        disputes.list({ ...opts.filter, startDate: start, endDate: stop, pageNum, pageSize }),
      { pageSize: opts.pageSize ?? 50 },
    );
    for await (const r of records) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      yield r;
    }
    if (stop >= end) return;
    start = stop - overlap;
  }
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
