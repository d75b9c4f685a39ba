/**
 * The shop's product events, for the products' connections: products/delete drops the deleted
 * product's connections; products/update drops those of variants that are gone. Registered by
 * app/worker/registry.server.ts; the events are stored by the intake (app/webhooks/).
 */
import { z } from "zod";
import type { JobHandler } from "../jobs/handler";
import { payloadId } from "../events/ids.server";
import { loadEvent } from "../events/store.server";

/** Shopify's products/update payload: full variants for the first 100, every variant's GID. */
const FULL_VARIANTS_IN_PAYLOAD = 100;
const productUpdateSchema = z
  .object({
    id: z.union([z.number(), z.string()]),
    admin_graphql_api_id: z.string().optional(),
    variants: z.array(
      z
        .object({
          id: z.union([z.number(), z.string()]),
          admin_graphql_api_id: z.string().optional(),
        })
        .passthrough(),
    ),
    variant_gids: z.array(z.object({ admin_graphql_api_id: z.string() }).passthrough()).optional(),
  })
  .passthrough();

/** A deleted product's connections go. */
export const productDeleted: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  const id = payloadId((event.payload as { id?: unknown } | null)?.id);
  if (!id) return { skipped: "no product id" };
  const n = await ctx.prisma.productConnection.deleteMany({
    where: {
      shopDomain: event.shopDomain,
      shopifyProductId: { in: [id, `gid://shopify/Product/${id}`] },
    },
  });
  return { connectionsRemoved: n.count };
};
/**
 * Shopify sends the full details of the first 100 variants only; `variant_gids` names every
 * variant (101 and beyond included). A variant is gone only when it is in neither list.
 */
export const productUpdated: JobHandler = async (ctx) => {
  const event = await loadEvent(ctx);
  if (!event) return { skipped: "event gone" };
  const p = productUpdateSchema.safeParse(event.payload);
  if (!p.success) return { skipped: "no variants in the payload" };
  const productIds = [p.data.id, p.data.admin_graphql_api_id].flatMap((v) => {
    const id = payloadId(v);
    return id ? [id, `gid://shopify/Product/${id}`] : [];
  });
  if (productIds.length === 0) return { skipped: "no product id" };
  const { variants, variant_gids } = p.data;
  if (!variant_gids && variants.length >= FULL_VARIANTS_IN_PAYLOAD) {
    // An older payload without variant_gids: the list may be cut at 100, so nothing is known
    // to be gone.
    return { skipped: "variant list may be truncated", connectionsRemoved: 0 };
  }
  const present = new Set<string>();
  for (const v of variants) {
    for (const value of [v.id, v.admin_graphql_api_id]) {
      const id = payloadId(value);
      if (id) present.add(id);
    }
  }
  for (const v of variant_gids ?? []) {
    const id = payloadId(v.admin_graphql_api_id);
    if (id) present.add(id);
  }
  // Every product has at least one variant: an empty list says nothing about which are gone.
  if (present.size === 0) return { skipped: "no variants listed", connectionsRemoved: 0 };
  const keep = [...present].flatMap((id) => [id, `gid://shopify/ProductVariant/${id}`]);
  const n = await ctx.prisma.productConnection.deleteMany({
    where: {
      shopDomain: event.shopDomain,
      shopifyProductId: { in: productIds },
      shopifyVariantId: { notIn: keep },
    },
  });
  return { connectionsRemoved: n.count, variantsListed: present.size };
};
