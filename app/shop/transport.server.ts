/**
 * One Admin GraphQL call: the library's `admin.graphql(query, { variables })`, the answer
 * parsed with zod, every failure mapped to a typed ShopError (library-errors.server.ts) whose message
 * names the operation and the shop and never carries the access token. THROTTLED answers are
 * retried after the wait the cost figures call for.
 */
import { z } from "zod";
import { ShopError, ShopThrottledError, redact } from "./errors";
import type { ShopDomain } from "./ids";
import { mapLibraryError } from "./library-errors.server";
import { recordShopifyCall } from "../metrics/registry.server";

/** The shape of `admin.graphql` in @shopify/shopify-app-remix. */
export type AdminGraphql = (
  query: string,
  options?: { variables?: Record<string, unknown> },
) => Promise<Response>;

export interface GatewayOptions {
  shop: ShopDomain;
  graphql: AdminGraphql;
  /** Strings never to show in an error (the access token). */
  secrets?: (string | undefined)[];
  /** Retries of a THROTTLED answer (GraphQL cost limit) before giving up. Default 5. */
  throttleRetries?: number;
  /** Upper bound of one wait between throttle retries. Default 20 s. */
  maxThrottleWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Runs one named document and parses `data` with the schema. */
export type Call = <T>(
  doc: string,
  variables: Record<string, unknown>,
  schema: z.ZodType<T>,
) => Promise<T>;

/** The operation name of a document (`query GetOrder(...)` → `GetOrder`). */
export function operationName(doc: string): string {
  return /\b(?:query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(doc)?.[1] ?? "anonymous";
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** This process's picture of each shop's Admin API bucket, from the latest reply. */
const buckets = new Map<string, { available: number; max: number; rate: number; at: number }>();
/** The requested cost each operation last had (its next call will ask about as much). */
const lastRequested = new Map<string, number>();

export function createCall(opts: GatewayOptions): Call {
  const { shop, graphql } = opts;
  const secrets = opts.secrets ?? [];
  const throttleRetries = opts.throttleRetries ?? 5;
  const maxWait = opts.maxThrottleWaitMs ?? 20_000;
  const sleep = opts.sleep ?? defaultSleep;

  // Pacing: every reply tells the shop's bucket (extensions.cost.throttleStatus) and what the
  // call asked for. Every gateway of this process shares that picture per shop (the jobs of a
  // shop run side by side), and a call takes its requested cost out of it before it goes: a
  // call the bucket cannot cover yet waits for the refill instead of being answered THROTTLED.
  const pace = async (operation: string) => {
    const need = lastRequested.get(operation);
    for (let waits = 0; need !== undefined && waits < 10; waits++) {
      const b = buckets.get(shop);
      if (!b || b.rate <= 0 || need > b.max) return;
      const now = Date.now();
      const available = Math.min(b.max, b.available + ((now - b.at) / 1000) * b.rate);
      if (available >= need) {
        buckets.set(shop, { ...b, available: available - need, at: now });
        return;
      }
      await sleep(Math.min(maxWait, Math.ceil(((need - available) / b.rate) * 1000)));
    }
  };
  const learn = (operation: string, body: unknown) => {
    const cost = costSchema.safeParse((body as { extensions?: unknown } | null)?.extensions);
    if (!cost.success) return;
    const { requestedQueryCost, throttleStatus: t } = cost.data.cost;
    lastRequested.set(operation, requestedQueryCost);
    buckets.set(shop, {
      available: t.currentlyAvailable,
      max: t.maximumAvailable,
      rate: t.restoreRate,
      at: Date.now(),
    });
  };

  return async function call<T>(
    doc: string,
    variables: Record<string, unknown>,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const operation = operationName(doc);
    for (let attempt = 0; ; attempt++) {
      let body: unknown;
      let started = Date.now();
      const took = () => (Date.now() - started) / 1000;
      try {
        await pace(operation);
        started = Date.now();
        const res = await graphql(doc, { variables });
        body = await res.json();
        learn(operation, body);
      } catch (error) {
        // A Response is the library's answer for the browser (re-auth redirect): pass it on.
        if (error instanceof Response) {
          recordShopifyCall(operation, "redirect", took());
          throw error;
        }
        // A THROTTLED reply carries the bucket too.
        learn(operation, (error as { body?: unknown } | null)?.body);
        const mapped = mapLibraryError(error, { shop, operation, secrets });
        recordShopifyCall(operation, mapped.code, took());
        if (mapped instanceof ShopThrottledError && attempt < throttleRetries) {
          await sleep(Math.min(maxWait, mapped.retryAfterMs ?? 1000));
          continue;
        }
        throw mapped;
      }
      const data = (body as { data?: unknown } | null)?.data;
      const parsed = schema.safeParse(data);
      recordShopifyCall(operation, parsed.success ? "ok" : "BAD_RESPONSE", took());
      if (!parsed.success) {
        throw new ShopError("BAD_RESPONSE", {
          shop,
          operation,
          message: `unexpected response shape: ${redact(z.prettifyError(parsed.error), secrets).slice(0, 500)}`,
        });
      }
      return parsed.data;
    }
  };
}

const costSchema = z.object({
  cost: z.object({
    requestedQueryCost: z.number(),
    throttleStatus: z.object({
      maximumAvailable: z.number(),
      currentlyAvailable: z.number(),
      restoreRate: z.number(),
    }),
  }),
});

export const clamp = (n: number, lo: number, hi: number) =>
  Math.max(lo, Math.min(hi, Math.floor(n)));

/** Shared response pieces. */
export const pageInfoSchema = z.object({
  hasNextPage: z.boolean(),
  endCursor: z.string().nullable(),
});

export const userErrorsSchema = z.array(
  z.object({ field: z.array(z.string()).nullable().optional(), message: z.string() }),
);

/** Follows a connection's pages until hasNextPage is false. */
export async function allPages<T>(
  first: { items: T[]; pageInfo: z.infer<typeof pageInfoSchema> },
  next: (after: string) => Promise<{ items: T[]; pageInfo: z.infer<typeof pageInfoSchema> }>,
): Promise<T[]> {
  const items = [...first.items];
  let info = first.pageInfo;
  while (info.hasNextPage && info.endCursor) {
    const page = await next(info.endCursor);
    items.push(...page.items);
    info = page.pageInfo;
  }
  return items;
}
