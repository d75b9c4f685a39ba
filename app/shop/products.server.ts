/**
 * The shop's products and variants (the Products page, connecting by SKU). Pages are capped so
 * every document stays far under Shopify's 1,000-point limit.
 */
import { z } from "zod";
import {
  type ShopifyProductGid,
  type ShopifyVariantGid,
  parseProductGid,
  parseVariantGid,
} from "./ids";
import type { SelectedOption } from "./orders.server";
import { ShopNotFoundError } from "./errors";
import { type Call, clamp, pageInfoSchema } from "./transport.server";

export const PRODUCT_PAGE = {
  /** Products per page of ListProducts. */
  products: 20,
  /** Variants listed with each product (the rest: ListProductVariants). */
  variants: 20,
  /** Variants per page of ListProductVariants. */
  moreVariants: 250,
} as const;

const VARIANT = `
  id
  sku
  title
  price
  selectedOptions { name value }`;

/**
 * A page of products with their first variants. Worst-case requested cost 922 (first 20,
 * variantsFirst 20): products 2 + 20 × (Product 1 + featuredMedia 1 + preview 1 + image 1
 * + variants (2 + 20 × (ProductVariant 1 + selectedOptions 1))) = 2 + 20 × 46.
 */
export const LIST_PRODUCTS = `#graphql
query ListProducts($first: Int!, $after: String, $query: String, $variantsFirst: Int!) {
  products(first: $first, after: $after, query: $query) {
    edges {
      cursor
      node {
        id
        title
        handle
        featuredMedia { preview { image { url } } }
        variants(first: $variantsFirst) {
          nodes {${VARIANT}
          }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}`;

/**
 * Further variants of one product. Worst-case requested cost 503 (first 250):
 * product 1 + variants (2 + 250 × 2).
 */
export const LIST_PRODUCT_VARIANTS = `#graphql
query ListProductVariants($id: ID!, $first: Int!, $after: String) {
  product(id: $id) {
    id
    variants(first: $first, after: $after) {
      nodes {${VARIANT}
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

export interface ShopVariant {
  id: ShopifyVariantGid;
  sku: string | null;
  title: string;
  price: string;
  options: SelectedOption[];
}

export interface ShopProduct {
  id: ShopifyProductGid;
  title: string;
  handle: string;
  imageUrl: string | null;
  variants: ShopVariant[];
  /** Set when the product has more variants than were listed; page with listProductVariants. */
  moreVariantsAfter: string | null;
}

export interface Page<T> {
  items: T[];
  hasNextPage: boolean;
  endCursor: string | null;
}

const gid = <T>(parse: (v: unknown) => T) => z.string().transform((v) => parse(v));
const option = z.object({ name: z.string(), value: z.string() });

const variantSchema = z.object({
  id: gid(parseVariantGid),
  sku: z.string().nullable(),
  title: z.string(),
  price: z.string(),
  selectedOptions: z.array(option),
});

const variantConnection = z.object({ nodes: z.array(variantSchema), pageInfo: pageInfoSchema });

const productsSchema = z.object({
  products: z.object({
    edges: z.array(
      z.object({
        cursor: z.string(),
        node: z.object({
          id: gid(parseProductGid),
          title: z.string(),
          handle: z.string(),
          featuredMedia: z
            .object({
              preview: z.object({ image: z.object({ url: z.string() }).nullable() }).nullable(),
            })
            .nullable(),
          variants: variantConnection,
        }),
      }),
    ),
    pageInfo: pageInfoSchema,
  }),
});

const toVariant = (v: z.infer<typeof variantSchema>): ShopVariant => ({
  id: v.id,
  sku: v.sku || null,
  title: v.title,
  price: v.price,
  options: v.selectedOptions,
});

export async function listProducts(
  call: Call,
  o: { first?: number; after?: string | null; query?: string; variantsFirst?: number } = {},
): Promise<Page<ShopProduct>> {
  const data = await call(
    LIST_PRODUCTS,
    {
      first: clamp(o.first ?? PRODUCT_PAGE.products, 1, PRODUCT_PAGE.products),
      after: o.after ?? null,
      query: o.query || null,
      variantsFirst: clamp(o.variantsFirst ?? PRODUCT_PAGE.variants, 1, PRODUCT_PAGE.variants),
    },
    productsSchema,
  );
  const conn = data.products;
  return {
    items: conn.edges.map(({ node }) => ({
      id: node.id,
      title: node.title,
      handle: node.handle,
      imageUrl: node.featuredMedia?.preview?.image?.url ?? null,
      variants: node.variants.nodes.map(toVariant),
      moreVariantsAfter: node.variants.pageInfo.hasNextPage
        ? node.variants.pageInfo.endCursor
        : null,
    })),
    hasNextPage: conn.pageInfo.hasNextPage,
    endCursor: conn.pageInfo.endCursor,
  };
}

export async function listProductVariants(
  call: Call,
  shop: string,
  productGid: ShopifyProductGid,
  o: { first?: number; after?: string | null } = {},
): Promise<Page<ShopVariant>> {
  const data = await call(
    LIST_PRODUCT_VARIANTS,
    {
      id: productGid,
      first: clamp(o.first ?? PRODUCT_PAGE.moreVariants, 1, PRODUCT_PAGE.moreVariants),
      after: o.after ?? null,
    },
    z.object({ product: z.object({ id: z.string(), variants: variantConnection }).nullable() }),
  );
  if (!data.product) {
    throw new ShopNotFoundError("NOT_FOUND", {
      shop,
      operation: "ListProductVariants",
      message: `product ${productGid} not found`,
    });
  }
  return {
    items: data.product.variants.nodes.map(toVariant),
    hasNextPage: data.product.variants.pageInfo.hasNextPage,
    endCursor: data.product.variants.pageInfo.endCursor,
  };
}
