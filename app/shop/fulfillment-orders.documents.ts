/**
 * The Admin GraphQL documents of fulfillment-orders.server.ts and the page sizes they are costed
 * with (the largest the gateway sends); each document's worst-case requested cost is written
 * beside it and checked by test/shop/documents.test.ts.
 */

// ---------------------------------------------------------------------------------------------
// Page sizes (the largest the gateway sends; the costs below are computed with these)

export const FULFILLMENT_PAGE = {
  /** Fulfilment orders per page of GetOrderFulfillmentOrders. */
  fulfillmentOrders: 8,
  /** Line items of each fulfilment order on that page. */
  fulfillmentOrderLines: 40,
  /** Fulfilments of each fulfilment order on that page. */
  fulfillmentOrderFulfillments: 5,
  /** Further pages of one fulfilment order's line items. */
  moreFulfillmentOrderLines: 250,
  /** Further pages of one fulfilment order's fulfilments. */
  moreFulfillments: 50,
  /** Line items per page of one fulfilment (GetFulfillmentLineItems). */
  fulfillmentLines: 250,
} as const;

const FO_LINE = `id remainingQuantity totalQuantity lineItem { id }`;
const FULFILLMENT = `id status createdAt trackingInfo(first: 3) { number url company }`;

/**
 * The order's fulfilment orders, a page at a time, each with its first page of line items and
 * of fulfilments. Worst-case requested cost 875 (first 8, linesFirst 40, fulfillmentsFirst 5):
 * order 1 + fulfillmentOrders 2 + 8 × (FulfillmentOrder 1 + supportedActions 1
 * + fulfillmentHolds 1 + assignedLocation 1 + location 1 + lineItems (2 + 40 × 2)
 * + fulfillments (2 + 5 × (1 + trackingInfo 3))) = 1 + 2 + 8 × 109.
 */
export const GET_ORDER_FULFILLMENT_ORDERS = `#graphql
query GetOrderFulfillmentOrders(
  $id: ID!
  $first: Int!
  $after: String
  $linesFirst: Int!
  $fulfillmentsFirst: Int!
) {
  order(id: $id) {
    id
    fulfillmentOrders(first: $first, after: $after) {
      nodes {
        id
        status
        fulfillAt
        supportedActions { action }
        fulfillmentHolds { reason reasonNotes }
        assignedLocation { location { id } }
        lineItems(first: $linesFirst) {
          nodes { ${FO_LINE} }
          pageInfo { hasNextPage endCursor }
        }
        fulfillments(first: $fulfillmentsFirst) {
          nodes { ${FULFILLMENT} }
          pageInfo { hasNextPage endCursor }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * The same without the location, for a shop that has not approved `read_locations` yet (an
 * install from before the app asked for it): each fulfilment order then gets its own
 * fulfillmentCreate. Worst-case requested cost 859 (as above without assignedLocation and
 * location: 8 × 107 + 3).
 */
export const GET_ORDER_FULFILLMENT_ORDERS_WITHOUT_LOCATION = `#graphql
query GetOrderFulfillmentOrdersWithoutLocation(
  $id: ID!
  $first: Int!
  $after: String
  $linesFirst: Int!
  $fulfillmentsFirst: Int!
) {
  order(id: $id) {
    id
    fulfillmentOrders(first: $first, after: $after) {
      nodes {
        id
        status
        fulfillAt
        supportedActions { action }
        fulfillmentHolds { reason reasonNotes }
        lineItems(first: $linesFirst) {
          nodes { ${FO_LINE} }
          pageInfo { hasNextPage endCursor }
        }
        fulfillments(first: $fulfillmentsFirst) {
          nodes { ${FULFILLMENT} }
          pageInfo { hasNextPage endCursor }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * Further line items of one fulfilment order. Worst-case requested cost 503 (first 250):
 * fulfillmentOrder 1 + lineItems (2 + 250 × (1 + lineItem 1)).
 */
export const GET_FULFILLMENT_ORDER_LINE_ITEMS = `#graphql
query GetFulfillmentOrderLineItems($id: ID!, $first: Int!, $after: String) {
  fulfillmentOrder(id: $id) {
    id
    lineItems(first: $first, after: $after) {
      nodes { ${FO_LINE} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * Further fulfilments of one fulfilment order. Worst-case requested cost 203 (first 50):
 * fulfillmentOrder 1 + fulfillments (2 + 50 × (1 + trackingInfo 3)).
 */
export const GET_FULFILLMENT_ORDER_FULFILLMENTS = `#graphql
query GetFulfillmentOrderFulfillments($id: ID!, $first: Int!, $after: String) {
  fulfillmentOrder(id: $id) {
    id
    fulfillments(first: $first, after: $after) {
      nodes { ${FULFILLMENT} }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;
