/**
 * Every Admin GraphQL operation the app sends, named (the name shows in Shopify's logs and
 * in the shop simulator's call log). API version: the app's (October26 = 2026-10).
 */

const TRACKING = `trackingInfo(first: 10) { number url company }`;

const FULFILLMENT_ORDER = `
  id
  status
  assignedLocation { location { id } }
  lineItems(first: 250) {
    nodes { id remainingQuantity totalQuantity lineItem { id } }
  }`;

const VARIANT = `
  id
  sku
  title
  price
  selectedOptions { name value }`;

export const GET_ORDER = `#graphql
query GetOrder($id: ID!) {
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
    lineItems(first: 250) {
      nodes {
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
        originalUnitPriceSet { shopMoney { amount currencyCode } }
      }
      pageInfo { hasNextPage endCursor }
    }
    fulfillmentOrders(first: 50) {
      nodes {${FULFILLMENT_ORDER}
      }
    }
    fulfillments(first: 50) {
      id
      status
      createdAt
      ${TRACKING}
      fulfillmentLineItems(first: 250) { nodes { id quantity lineItem { id } } }
    }
  }
}`;

export const GET_ORDER_FULFILLMENT_ORDERS = `#graphql
query GetOrderFulfillmentOrders($id: ID!) {
  order(id: $id) {
    id
    fulfillmentOrders(first: 50) {
      nodes {${FULFILLMENT_ORDER}
      }
    }
  }
}`;

export const CREATE_FULFILLMENT = `#graphql
mutation CreateFulfillment($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment {
      id
      status
      ${TRACKING}
    }
    userErrors { field message }
  }
}`;

export const UPDATE_FULFILLMENT_TRACKING = `#graphql
mutation UpdateFulfillmentTracking(
  $fulfillmentId: ID!
  $trackingInfoInput: FulfillmentTrackingInput!
  $notifyCustomer: Boolean
) {
  fulfillmentTrackingInfoUpdate(
    fulfillmentId: $fulfillmentId
    trackingInfoInput: $trackingInfoInput
    notifyCustomer: $notifyCustomer
  ) {
    fulfillment {
      id
      status
      ${TRACKING}
    }
    userErrors { field message }
  }
}`;

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

/** The operation name of a document (`query GetOrder(...)` → `GetOrder`). */
export function operationName(doc: string): string {
  return /\b(?:query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(doc)?.[1] ?? "anonymous";
}
