/** The order pipeline (DESIGN §4): use cases, job handlers and the merchant's actions. */
export * from "./model";
export * from "../orders/deps.server";
export * from "../orders/schedule.server";
export * from "../orders/timeline.server";
export {
  receiveShopOrder,
  placeOrder,
  buildCreateRequest,
  missingShipping,
} from "./place/index.server";
export { payAccount } from "./pay/index.server";
export { trackOrder, onSvcEvent, idsFromParams, setServiceOrderId } from "./track.server";
export { reconcileAccount, reconcileAll } from "./reconcile/index.server";
export { retryOrder, holdOrder, releaseOrder, cancelOrder } from "./actions.server";
export { recheckHeld, stillHeld, balanceSeen } from "../orders/recheck.server";
export { fulfilmentHandlers, fulfilmentRecurringJobs } from "./handlers.server";
export * from "../orders/states";
