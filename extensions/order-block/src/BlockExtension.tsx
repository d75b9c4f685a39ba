/**
 * The order block on Shopify's order page: the app's view of this order, the one action that
 * fits it (Retry, Pay now, Release) and a link to the app's order page.
 */
import "@shopify/ui-extensions/preact";
import type { Api } from "@shopify/ui-extensions/admin.order-details.block.render";
import { render } from "preact";
import { useState } from "preact/hooks";
import { blockAction, errorText, type ExtensionIntent, host, runAction } from "../../shared/api";
import { useOneAtATime, useOrders } from "../../shared/hooks";
import { OrderFacts } from "../../shared/OrderFacts";

const shopify = () => host<Api>();

export default async () => {
  render(<OrderBlock />, document.body);
};

function OrderBlock() {
  const id = shopify().data.selected[0]?.id ?? "";
  const { orders, error, reload } = useOrders([id]);
  const { busy, run } = useOneAtATime();
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null);

  const act = (intent: ExtensionIntent) =>
    run(async () => {
      setOutcome(null);
      try {
        const { run: done, message } = await runAction(intent, [id]);
        const result = done.results[0];
        setOutcome(result ? { ok: result.ok, message: result.message } : { ok: true, message });
        await reload();
      } catch (e) {
        setOutcome({ ok: false, message: errorText(e) });
      }
    });

  const loaded = orders?.[0];
  const problem = error ?? (orders && !loaded ? "No answer from the app." : null);
  if (!loaded && !problem) {
    return (
      <s-admin-block heading="Dropship Autopilot">
        <s-spinner accessibilityLabel="Loading the order from the app" />
      </s-admin-block>
    );
  }
  if (!loaded) {
    return (
      <s-admin-block heading="Dropship Autopilot" collapsedSummary="Could not load">
        <s-banner tone="critical" heading="Could not load this order from the app">
          {problem}
          <s-button slot="secondary-actions" onClick={() => void reload()}>
            Try again
          </s-button>
        </s-banner>
      </s-admin-block>
    );
  }
  const order = loaded;
  if (!order.handled) {
    return (
      <s-admin-block heading="Dropship Autopilot" collapsedSummary="Not handled by the app">
        <s-text color="subdued">
          The app does not handle this order: it has no product connected to the supplier, or it
          came in before the app was installed.
        </s-text>
      </s-admin-block>
    );
  }
  const action = blockAction(order);
  return (
    <s-admin-block heading="Dropship Autopilot" collapsedSummary={order.summary}>
      <s-stack gap="base">
        <OrderFacts order={order} />
        {outcome ? (
          <s-banner tone={outcome.ok ? "success" : "critical"}>{outcome.message}</s-banner>
        ) : null}
        <s-stack direction="inline" gap="base" alignItems="center">
          {action ? (
            <s-button
              variant="primary"
              loading={busy}
              disabled={busy}
              onClick={() => void act(action.intent)}
            >
              {action.label}
            </s-button>
          ) : null}
          <s-link href={`app:${order.appPath}`}>Open in Dropship Autopilot</s-link>
        </s-stack>
      </s-stack>
    </s-admin-block>
  );
}
