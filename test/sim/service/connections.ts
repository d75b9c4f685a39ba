/** Product connections (Part 2 §4.10): list, create, delete; creation may complete store-flow orders. */
import type { Ctx, SimRuntime } from "./context";
import { paramError } from "./envelope";
import { connectPendingOrders } from "./orders";
import type { Account, Connection } from "./state";
import { asObject, int, list, str } from "./validate";

export const CONNECTION_MAX_PAGE_SIZE = 100;

function record(c: Connection): Record<string, unknown> {
  return {
    shopId: c.shopId,
    platformProductId: c.platformProductId,
    platformVariantId: c.platformVariantId,
    svcProductId: c.svcProductId,
    svcVariantId: c.svcVariantId,
    defaultArea: c.defaultArea,
    logistics: c.logistics,
    sourceCountryCode: c.sourceCountryCode ?? null,
    sourceCountry: c.sourceCountry ?? null,
    targetCountryCode: c.targetCountryCode ?? null,
    targetCountry: c.targetCountry ?? null,
  };
}

export function listConnections(ctx: Ctx): unknown {
  const q = ctx.body;
  const shopId = str(q, "shopId", { max: 40 }) ?? ctx.account.shopId;
  const platformProductId = str(q, "platformProductId", { max: 100 });
  const platformVariantId = str(q, "platformVariantId", { max: 100 });
  const page = int(q, "page", { min: 1 }) ?? 1;
  const pageSize = int(q, "pageSize", { min: 1, max: CONNECTION_MAX_PAGE_SIZE }) ?? 10;
  const all = ctx.state.connections.filter(
    (c) =>
      c.accountId === ctx.account.accountId &&
      c.shopId === shopId &&
      (!platformProductId || c.platformProductId === platformProductId) &&
      (!platformVariantId || c.platformVariantId === platformVariantId),
  );
  return { total: all.length, list: all.slice((page - 1) * pageSize, page * pageSize).map(record) };
}

/** Adds or replaces the connection of one shop variant, then completes waiting orders. */
export function upsertConnection(
  rt: SimRuntime,
  account: Account,
  conn: Omit<Connection, "accountId">,
): void {
  const state = rt.state;
  state.connections = state.connections.filter(
    (c) =>
      !(
        c.accountId === account.accountId &&
        c.shopId === conn.shopId &&
        c.platformProductId === conn.platformProductId &&
        c.platformVariantId === conn.platformVariantId
      ),
  );
  state.connections.push({ ...conn, accountId: account.accountId });
}

export function createConnection(ctx: Ctx): boolean {
  const b = ctx.body;
  const shopId = str(b, "shopId", { max: 50 }) ?? ctx.account.shopId;
  const defaultArea = int(b, "defaultArea", { required: true, min: 0, max: 99999 });
  const logistics = str(b, "logistics", { required: true, max: 200 });
  const svcProductId = str(b, "svcProductId", { required: true, max: 50 });
  const platformProductId = str(b, "platformProductId", { required: true, max: 100 });
  const sourceCountryCode = str(b, "sourceCountryCode", { max: 20 });
  const targetCountryCode = str(b, "targetCountryCode", { max: 20 });
  const sourceCountry = str(b, "sourceCountry", { max: 100 });
  const targetCountry = str(b, "targetCountry", { max: 100 });
  const variants = (list(b, "variantList", { required: true }) ?? []).map((raw, i) => {
    const v = asObject(raw, `variantList[${i}]`);
    return {
      svcVariantId: str(v, "svcVariantId", { required: true, max: 50 }),
      platformVariantId: str(v, "platformVariantId", { required: true, max: 100 }),
    };
  });
  const product = ctx.state.catalog.byPid.get(svcProductId);
  if (!product) throw paramError(`svcProductId ${svcProductId} does not exist`);
  for (const v of variants) {
    const variant = ctx.state.catalog.variantByVid.get(v.svcVariantId);
    if (!variant || variant.pid !== svcProductId) {
      throw paramError(`svcVariantId ${v.svcVariantId} is not a variant of ${svcProductId}`);
    }
  }
  for (const v of variants) {
    upsertConnection(ctx.rt, ctx.account, {
      shopId,
      platformProductId,
      platformVariantId: v.platformVariantId,
      svcProductId,
      svcVariantId: v.svcVariantId,
      defaultArea,
      logistics,
      sourceCountryCode,
      sourceCountry,
      targetCountryCode,
      targetCountry,
    });
  }
  connectPendingOrders(ctx.rt, ctx.account);
  return true;
}

export function deleteConnection(ctx: Ctx): boolean {
  const q = ctx.body;
  const shopId = str(q, "shopId", { max: 50 }) ?? ctx.account.shopId;
  const platformProductId = str(q, "platformProductId", { required: true, max: 100 });
  const platformVariantId = str(q, "platformVariantId", { max: 100 });
  ctx.state.connections = ctx.state.connections.filter(
    (c) =>
      !(
        c.accountId === ctx.account.accountId &&
        c.shopId === shopId &&
        c.platformProductId === platformProductId &&
        (!platformVariantId || c.platformVariantId === platformVariantId)
      ),
  );
  return true;
}
