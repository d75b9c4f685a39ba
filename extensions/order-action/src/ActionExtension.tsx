/**
 * "Send to supplier" in the More actions menu of Shopify's order page: the modal says what the
 * order is waiting for and what each choice does (the confirmation), then sends the order now
 * (a held order is released, a failed one retried) or holds it, and shows the outcome.
 */
import "@shopify/ui-extensions/preact";
import type { Api } from "@shopify/ui-extensions/admin.order-details.action.render";
import { render } from "preact";
import { useState } from "preact/hooks";
import { errorText, type ExtensionIntent, host, runAction, sendIntent } from "../../shared/api";
import { useOneAtATime, useOrders } from "../../shared/hooks";
import { OrderFacts } from "../../shared/OrderFacts";

const shopify = () => host<Api>();

export default async () => {
  render(<SendAction />, document.body);
};

type Outcome = { ok: boolean; message: string };

function SendAction() {
  const id = shopify().data.selected[0]?.id ?? "";
  const { orders, error } = useOrders([id]);
  const order = orders?.[0] ?? null;
  const { busy, run } = useOneAtATime();
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const act = (intent: ExtensionIntent) =>
    run(async () => {
      try {
        const { run: done } = await runAction(intent, [id]);
        const r = done.results[0];
        setOutcome(r ? { ok: r.ok, message: r.message } : { ok: false, message: "No result yet." });
      } catch (e) {
        setOutcome({ ok: false, message: errorText(e) });
      }
    });

  const close = (
    <s-button slot="secondary-actions" onClick={() => shopify().close()}>
      {outcome ? "Done" : "Cancel"}
    </s-button>
  );

  if (error) {
    return (
      <s-admin-action heading="Send to supplier">
        <s-banner tone="critical" heading="Could not load this order from the app">
          {error}
        </s-banner>
        {close}
      </s-admin-action>
    );
  }
  if (!order) {
    return (
      <s-admin-action heading="Send to supplier" loading>
        <s-spinner accessibilityLabel="Loading the order from the app" />
        {close}
      </s-admin-action>
    );
  }
  if (!order.handled) {
    return (
      <s-admin-action heading="Send to supplier">
        <s-text>
          The app does not handle this order: none of its products is connected to the supplier, or
          it came in before the app was installed.
        </s-text>
        {close}
      </s-admin-action>
    );
  }
  const send = sendIntent(order);
  const canHold = order.actions.includes("hold");
  return (
    <s-admin-action heading={`Send ${order.name} to supplier`}>
      <s-stack gap="base">
        {outcome ? (
          <s-banner tone={outcome.ok ? "success" : "critical"}>{outcome.message}</s-banner>
        ) : (
          <>
            <OrderFacts order={order} />
            <s-paragraph>
              {send
                ? "Send now places the order with the supplier and pays it from your balance, as your settings say. Hold stops it here until you release it."
                : canHold
                  ? "The order is already on its way to the supplier. Hold stops it here until you release it."
                  : "Nothing to do: the order has gone past the point where it can be sent or held."}
            </s-paragraph>
          </>
        )}
      </s-stack>
      {send && !outcome ? (
        <s-button
          slot="primary-action"
          variant="primary"
          loading={busy}
          disabled={busy}
          onClick={() => void act(send)}
        >
          Send now
        </s-button>
      ) : null}
      {canHold && !outcome ? (
        <s-button slot="secondary-actions" disabled={busy} onClick={() => void act("hold")}>
          Hold
        </s-button>
      ) : null}
      {close}
    </s-admin-action>
  );
}
