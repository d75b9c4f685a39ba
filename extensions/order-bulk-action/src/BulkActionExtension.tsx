/**
 * "Send, retry or hold" on the selected orders of Shopify's order list: counts what the
 * selection holds, runs the chosen action on the orders it fits, and lists each order's result.
 */
import "@shopify/ui-extensions/preact";
import type { Api } from "@shopify/ui-extensions/admin.order-index.selection-action.render";
import { render } from "preact";
import { useState } from "preact/hooks";
import {
  errorText,
  type ExtensionIntent,
  type ExtensionRun,
  type HandledOrder,
  host,
  runAction,
} from "../../shared/api";
import { useOneAtATime, useOrders } from "../../shared/hooks";

const shopify = () => host<Api>();

export default async () => {
  render(<BulkAction />, document.body);
};

const CHOICES: Array<{ intent: ExtensionIntent; label: string; fits: string }> = [
  { intent: "release", label: "Send held", fits: "held" },
  { intent: "retry", label: "Retry failed", fits: "failed or with a problem" },
  { intent: "hold", label: "Hold", fits: "not yet paid" },
];

function BulkAction() {
  const ids = shopify().data.selected.map((s) => s.id);
  const { orders, error: loadError } = useOrders(ids);
  const [actError, setActError] = useState<string | null>(null);
  const error = actError ?? loadError;
  const { busy, run: runOnce } = useOneAtATime();
  const [run, setRun] = useState<ExtensionRun | null>(null);
  const [chosen, setChosen] = useState("");

  const handled = (orders ?? []).filter((o): o is HandledOrder => o.handled);
  // A held order is sent (released); Retry is for failed orders and problems after payment.
  const fitting = (intent: ExtensionIntent) =>
    handled.filter(
      (o) => o.actions.includes(intent) && !(intent === "retry" && o.state === "HELD"),
    );

  const act = (intent: ExtensionIntent, label: string) =>
    runOnce(async () => {
      setChosen(label);
      setActError(null);
      try {
        setRun(
          (
            await runAction(
              intent,
              fitting(intent).map((o) => o.id),
            )
          ).run,
        );
      } catch (e) {
        setActError(errorText(e));
      }
    });

  const close = (
    <s-button slot="secondary-actions" onClick={() => shopify().close()}>
      {run ? "Done" : "Cancel"}
    </s-button>
  );
  if (!orders && !error) {
    return (
      <s-admin-action heading="Dropship Autopilot" loading>
        <s-spinner accessibilityLabel="Loading the orders from the app" />
        {close}
      </s-admin-action>
    );
  }
  const notHandled = (orders ?? []).length - handled.length;
  return (
    <s-admin-action heading={`${ids.length} order${ids.length === 1 ? "" : "s"} selected`}>
      <s-stack gap="base">
        {error ? (
          <s-banner tone="critical" heading="The app could not do this">
            {error}
          </s-banner>
        ) : null}
        {run ? (
          <>
            <s-banner tone={run.failed ? "warning" : "success"}>
              {`${chosen}: ${run.done - run.failed} done${run.failed ? `, ${run.failed} not done` : ""}${run.finished ? "" : ", still running"}.`}
            </s-banner>
            <s-unordered-list>
              {run.results.map((r) => (
                <s-list-item key={r.orderId}>{`${r.name}: ${r.message}`}</s-list-item>
              ))}
            </s-unordered-list>
          </>
        ) : orders ? (
          <>
            <s-unordered-list>
              {CHOICES.map((c) => (
                <s-list-item key={c.intent}>{`${fitting(c.intent).length} ${c.fits}`}</s-list-item>
              ))}
              {notHandled ? (
                <s-list-item>{`${notHandled} not handled by the app (left alone)`}</s-list-item>
              ) : null}
            </s-unordered-list>
            <s-paragraph>
              Each action runs only on the orders it fits; the others are left as they are.
            </s-paragraph>
          </>
        ) : null}
      </s-stack>
      {!run && orders
        ? CHOICES.map((c, i) => {
            const n = fitting(c.intent).length;
            return (
              <s-button
                key={c.intent}
                slot={i === 0 ? "primary-action" : "secondary-actions"}
                variant={i === 0 ? "primary" : undefined}
                disabled={busy || n === 0}
                loading={busy}
                onClick={() => void act(c.intent, c.label)}
              >
                {`${c.label} (${n})`}
              </s-button>
            );
          })
        : null}
      {close}
    </s-admin-action>
  );
}
