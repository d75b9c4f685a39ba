/**
 * The Admin GraphQL documents of orders.server.ts and the page sizes they are costed with (the
 * largest the gateway sends); each document's worst-case requested cost is written beside it
 * and checked by test/shop/documents.test.ts.
 */

export const ORDER_PAGE = {
  /** Line items on GetOrder's first page (an ordinary order fits). */
  lines: 50,
  /** Line items per further page (GetOrderLineItems). */
  moreLines: 100,
} as const;

const LINE_ITEM = `
  id
  title
  variantTitle
  sku
  quantity
  currentQuantity
  requiresShipping
  image { url }
  product { id }
  variant { id selectedOptions { name value } }
  originalUnitPriceSet { shopMoney { amount currencyCode } }`;

/**
 * The order and its first page of line items. Worst-case requested cost 355 (linesFirst 50):
 * order 1 + shippingAddress 1 + risk 1 + lineItems (2 + 50 × (LineItem 1 + image 1 + product 1
 * + variant 1 + selectedOptions 1 + originalUnitPriceSet 1 + shopMoney 1)) = 3 + 2 + 50 × 7.
 */
export const GET_ORDER = `#graphql
query GetOrder($id: ID!, $linesFirst: Int!) {
  order(id: $id) {
    id
    name
    email
    createdAt
    cancelledAt
    currencyCode
    displayFinancialStatus
    displayFulfillmentStatus
    shippingAddress {
      firstName lastName company address1 address2 city province provinceCode
      zip country countryCodeV2 phone
    }
    risk { recommendation }
    lineItems(first: $linesFirst) {
      nodes {${LINE_ITEM}
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * Whether the shop has the order: its id only. Worst-case requested cost 1 (order 1).
 */
export const ORDER_IN_SHOP = `#graphql
query OrderInShop($id: ID!) {
  order(id: $id) {
    id
  }
}`;

/**
 * Further line items of the order. Worst-case requested cost 703 (first 100):
 * order 1 + lineItems (2 + 100 × 7).
 */
export const GET_ORDER_LINE_ITEMS = `#graphql
query GetOrderLineItems($id: ID!, $first: Int!, $after: String) {
  order(id: $id) {
    id
    lineItems(first: $first, after: $after) {
      nodes {${LINE_ITEM}
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;
