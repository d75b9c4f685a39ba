/**
 * What stops the order, shown at the top of the order page: a failed or held order, or a problem
 * after payment. A scheduled order (the review window) and a cancelled one are not problems.
 */
import { Banner, Text } from "@shopify/polaris";
import { flagWords, plainMessage } from "../../../orders/plain-words";
import { isScheduled } from "../../../orders/states";
import type { OrderDetail } from "./shared";

export function ProblemBanner({ order }: { order: OrderDetail }) {
  if (isScheduled(order)) return null;
  if (order.state === "CANCELLED" && !order.flag) {
    return order.reasonMessage ? (
      <Banner tone="info" title="Cancelled">
        <p>{order.reasonMessage}</p>
      </Banner>
    ) : null;
  }
  if (!order.reasonMessage && !order.flag) return null;
  return (
    <Banner
      tone={order.state === "FAILED" || order.flag ? "critical" : "warning"}
      title={order.state === "HELD" ? "Held" : "Needs attention"}
    >
      <p>{plainMessage(order.reasonMessage, order.timeZone) || flagWords(order.flag)}</p>
      {order.flag && order.reasonMessage ? <p>{flagWords(order.flag)}</p> : null}
      {order.lastError?.message && order.lastError.message !== order.reasonMessage ? (
        <Text as="p">{`Last error: ${plainMessage(order.lastError.message, order.timeZone)}`}</Text>
      ) : null}
    </Banner>
  );
}
