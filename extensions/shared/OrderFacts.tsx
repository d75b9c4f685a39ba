/// <reference types="@shopify/ui-extensions/admin.order-details.block.render" />
/**
 * What the app knows of one order, as the block and the action show it: the reason when held or
 * failed (in a banner, said once), the state in plain words, the service order, cost, method and
 * tracking.
 */
import type { HandledOrder } from "./api";
import { isOrderState, STATE_LABELS, money, stateTone } from "./api";

export function OrderFacts({ order }: { order: HandledOrder }) {
  return (
    <s-stack gap="base">
      {order.reason ? (
        <s-banner tone={order.state === "FAILED" ? "critical" : "warning"} heading="Why">
          {order.reason}
        </s-banner>
      ) : null}
      <Facts order={order} />
    </s-stack>
  );
}

function Facts({ order }: { order: HandledOrder }) {
  return (
    <s-stack gap="small-200">
      <s-stack direction="inline" gap="small-200" alignItems="center">
        <s-badge tone={stateTone(order.state)}>
          {isOrderState(order.state) ? STATE_LABELS[order.state] : order.state}
        </s-badge>
        {/* Held or failed, the reason is in the banner above: not said twice. */}
        {order.reason ? null : <s-text>{order.summary}</s-text>}
      </s-stack>
      {order.problem ? (
        <s-banner tone="warning" heading="Needs you after payment">
          {order.problem}
        </s-banner>
      ) : null}
      {order.svcOrderId ? (
        <s-text>
          Supplier order {order.svcOrderId}
          {order.svcStatus ? ` · ${order.svcStatus}` : ""}
        </s-text>
      ) : null}
      {order.cost || order.method ? (
        <s-text color="subdued">
          {[order.cost ? `Cost ${money(order.cost)}` : null, order.method]
            .filter(Boolean)
            .join(" · ")}
        </s-text>
      ) : null}
      {order.tracking.map((t) => (
        <s-stack key={t.number} direction="inline" gap="small-200">
          {t.url ? <s-link href={t.url}>{t.number}</s-link> : <s-text>{t.number}</s-text>}
          <s-text color="subdued">{[t.carrier, t.status].filter(Boolean).join(" · ")}</s-text>
        </s-stack>
      ))}
    </s-stack>
  );
}
