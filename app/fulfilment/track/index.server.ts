/**
 * Tracking back to the shop, as the rest of the app uses it. A service event is only a hint
 * (events.server.ts); a track job fetches the order's service orders (track-order.server.ts) and
 * applies each record (apply.server.ts): exactly the shop lines of a service order with a
 * tracking number are fulfilled, once (shop-write.server.ts).
 */
export { onSvcEvent, setServiceOrderId, type SvcEventInput } from "./events.server";
export { hasNews, trackHinted } from "./hinted.server";
export { NOT_READY_RETRY_MS } from "./shop-write.server";
export { trackOrder, type TrackResult } from "./track-order.server";
