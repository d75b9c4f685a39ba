/**
 * Placing an order (the place job): the named hold checks in their order, each passing or
 * stopping the placing, then the create at the service. Each step's result is persisted before
 * the next; the service orderNumber is stable, so a retry after an unknown outcome finds the
 * order instead of creating it twice.
 */
import type { ShopOrder as OrderRow } from "@prisma/client";
import { addLogContext } from "../../log-context.server";
import type { FulfilmentDeps } from "../../orders/deps.server";
import { SELF_RELEASING } from "../../orders/states";
import { settingsForJob } from "../../settings.server";
import type { ShopOrder as ShopifyOrder } from "../../shop/gateway.server";
import * as first from "./checks-order.server";
import * as last from "./checks-send.server";
import type { Halt, HoldCheck, PlaceCtx } from "./context.server";
import { createOrder } from "./create.server";
import { hold, type PlaceResult } from "./outcome.server";

/** The checks, in the order they are asked: the first that stops the placing ends it. */
export const HOLD_CHECKS: readonly HoldCheck[] = [
  first.paused,
  first.account,
  first.reviewWindow,
  first.settingsComplete,
  first.inShop,
  first.cancelledInShop,
  first.fraud,
  first.somethingToShip,
  last.protectedData,
  last.address,
  last.province,
  last.unconnectedLines,
  last.sentLines,
  last.shippingMethod,
  last.fx,
];

/** HELD reasons the place step acts on (others wait for the merchant or for the payment). */
const PLACEABLE_HELD: string[] = [...SELF_RELEASING, "invalid_address"];

/** Has the merchant released this order (skip the review window and the risk hold)? */
async function releasedByMerchant(deps: FulfilmentDeps, orderId: string): Promise<boolean> {
  return (await deps.prisma.timelineEntry.count({ where: { orderId, step: "release" } })) > 0;
}

async function halted(ctx: PlaceCtx, halt: Halt): Promise<PlaceResult> {
  if ("done" in halt) return halt.done;
  await hold(ctx.deps.prisma, ctx.order, halt.hold, halt.message, halt.extra);
  return halt.retryAt
    ? { outcome: "held", reason: halt.hold, retryAt: halt.retryAt }
    : { outcome: "held", reason: halt.hold };
}

/**
 * Places the order. From the delivery that stored it a moment ago: `row`, the order as stored,
 * and `fetched`, as the shop had it, so neither is read again.
 */
export async function placeOrder(
  deps: FulfilmentDeps,
  orderId: string,
  opts: { fetched?: ShopifyOrder; row?: OrderRow } = {},
): Promise<PlaceResult> {
  const order: OrderRow | null =
    opts.row ?? (await deps.prisma.shopOrder.findUnique({ where: { id: orderId } }));
  if (!order) return { outcome: "skipped", why: "order gone" };
  addLogContext({ orderId: order.id, shop: order.shopDomain });
  const placeable =
    order.state === "RECEIVED" ||
    (order.state === "HELD" && PLACEABLE_HELD.includes(order.reasonCode ?? ""));
  if (!placeable) return { outcome: "skipped", why: `state ${order.state}` };
  // Asked only when a hold could apply (one query fewer for most orders).
  let released: Promise<boolean> | undefined;
  const ctx: PlaceCtx = {
    deps,
    order,
    now: deps.clock.now(),
    settings: await settingsForJob(deps.prisma, order.shopDomain),
    prefetched: opts.fetched,
    released: () => (released ??= releasedByMerchant(deps, order.id)),
  };
  for (const { check } of HOLD_CHECKS) {
    const halt = await check(ctx);
    if (halt) return halted(ctx, halt);
  }
  return createOrder(ctx);
}
