/**
 * Placing orders, as the rest of the app sees it: the webhook's intake of a shop order, the
 * place job (hold checks, then the create), the hold of an order and of one the service did not
 * answer for, and the request's pure helpers (app/fulfilment/create-request.ts).
 */
export {
  type Delivery,
  NOT_IN_SHOP,
  readDelivery,
  orderWebhookSchema,
  receiveShopOrder,
  type ReceiveResult,
} from "./receive.server";
export { HOLD_CHECKS, placeOrder } from "./place.server";
export { hold, holdUnreachable, isRetryable, type PlaceResult } from "./outcome.server";
export {
  buildCreateRequest,
  missingProvince,
  missingShipping,
  protectedDataMessage,
} from "../create-request";
