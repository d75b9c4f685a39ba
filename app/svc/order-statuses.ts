/**
 * The service's order statuses (`orderStatus` of getOrderDetailBatch), grouped as the pipeline
 * reads them (contract Part 2, and DESIGN §8 for the ones seen live).
 */

/** Service statuses of an order not paid yet. */
export const UNPAID_STATUSES = ["CREATED", "IN_CART", "UNPAID"];
/** Service statuses of an order that is paid. */
export const PAID_AT_SERVICE = ["UNSHIPPED", "PENDING", "PROCESSING", "SHIPPED", "DELIVERED"];
