/**
 * The order block on Shopify's order page: the app's view of this order, the one action that
 * fits it (Retry, Pay now, Release) and a link to the app's order page.
 */
import "@shopify/ui-extensions/preact";
import type { Api } from "@shopify/ui-extensions/admin.order-details.block.render";
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import {
  blockAction,
  errorText,
  type ExtensionIntent,
  type ExtensionOrder,
  host,
  loadOrders,
  runAction,
} from "../../shared/api";
import { OrderFacts } from "../../shared/OrderFacts";

const shopify = () => host<Api>();

export default async () => {
  render(<OrderBlock />, document.body);
};

type Load =
  | { status: "loading" }
  | { status: "error"; message: string }
  | { status: "ready"; order: ExtensionOrder };

function OrderBlock() {
  const id = shopify().data.selected[0]?.id ?? "";
  const [load, setLoad] = useState<Load>({ status: "loading" });
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null);

  const refresh = useCallback(async () => {
    try {
      const [order] = await loadOrders([id]);
      setLoad(order ? { status: "ready", order } : { status: "error", message: "No answer." });
    } catch (e) {
      setLoad({ status: "error", message: errorText(e) });
    }
  }, [id]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const act = async (intent: ExtensionIntent) => {
    if (busy) return;
    setBusy(true);
    setOutcome(null);
    try {
      const { run, message } = await runAction(intent, [id]);
      const result = run.results[0];
      setOutcome(result ? { ok: result.ok, message: result.message } : { ok: true, message });
      await refresh();
    } catch (e) {
      setOutcome({ ok: false, message: errorText(e) });
    } finally {
      setBusy(false);
    }
  };

  if (load.status === "loading") {
    return (
      <s-admin-block heading="Dropship Autopilot">
        <s-spinner accessibilityLabel="Loading the order from the app" />
      </s-admin-block>
    );
  }
  if (load.status === "error") {
    return (
      <s-admin-block heading="Dropship Autopilot" collapsedSummary="Could not load">
        <s-banner tone="critical" heading="Could not load this order from the app">
          {load.message}
          <s-button slot="secondary-actions" onClick={() => void refresh()}>
            Try again
          </s-button>
        </s-banner>
      </s-admin-block>
    );
  }
  const order = load.order;
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
        {order.reason ? (
          <s-banner tone={order.state === "FAILED" ? "critical" : "warning"} heading="Why">
            {order.reason}
          </s-banner>
        ) : null}
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
