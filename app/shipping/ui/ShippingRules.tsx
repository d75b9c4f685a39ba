/**
 * The shipping rules editor of the settings page: one row per destination (./RuleCard.tsx), the
 * method chosen from the service's freight quote (never free text): "Show methods" asks the
 * service what it offers on the route, with price and transit days.
 */
import { Form, useFetcher } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, InlineStack } from "@shopify/polaris";
import { useEffect, useState } from "react";
import { type ActionData, FormStatus, fieldError } from "../../components/FormStatus";
import { editingProps } from "../../components/useAutoRefresh";
import type { Draft } from "../../components/useDraft";
import { RuleCard } from "./RuleCard";
import {
  type Option,
  type RuleRow,
  SHIPPING_INTENT,
  editable,
  posted,
  routeKey,
  sampleTo,
} from "./rule-rows";

export { type RuleRow, SHIPPING_INTENT, shippingSaved } from "./rule-rows";

type QuoteResult = {
  ok: boolean;
  intent: string;
  quote?: { to: string; from: string; options: Option[] };
  errors?: Record<string, string>;
};

/**
 * The methods offered per route, as the service's quotes tell them ("Show methods"), and the
 * quote's refusal.
 */
function useQuotes() {
  const [quotes, setQuotes] = useState<Record<string, Option[]>>({});
  const fetcher = useFetcher<QuoteResult>();
  useEffect(() => {
    const q = fetcher.data?.quote;
    if (q) setQuotes((old) => ({ ...old, [routeKey(q.from, q.to)]: q.options }));
  }, [fetcher.data]);
  return {
    offered: (r: RuleRow): Option[] | undefined => quotes[routeKey(r.from, r.to)],
    quoting: fetcher.state !== "idle",
    ask: (r: RuleRow) =>
      fetcher.submit({ intent: "quote", from: r.from, to: sampleTo(r.to) }, { method: "post" }),
    error: fetcher.data && !fetcher.data.ok ? fetcher.data.errors?.quote : undefined,
  };
}

/**
 * The page's save bar posts the rules with the other changed forms (`onSave`: the page's Save,
 * for Enter in a field).
 */
export function ShippingRules({
  draft,
  legacyMethod,
  refusal: result,
  onSave,
}: {
  draft: Draft<RuleRow[]>;
  legacyMethod: string;
  refusal: ActionData;
  onSave: () => void;
}) {
  const rules = draft.values;
  const setRules = draft.set;
  const quotes = useQuotes();
  const set = (i: number, patch: Partial<RuleRow>) =>
    setRules((old) => old.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div data-settings-card={SHIPPING_INTENT} {...editingProps(draft.dirty)}>
      <Card>
        <BlockStack gap="400">
          <FormStatus data={result} intent="save-shipping" summary />
          {rules.length === 0 ? (
            <Banner tone={legacyMethod ? "info" : "warning"}>
              {legacyMethod
                ? `Every order ships with ${legacyMethod} (an earlier setting). Add rules to choose per destination from the service's quotes.`
                : "Shipping is not set up: orders wait until you add a rule. A rule for every destination is enough to start."}
            </Banner>
          ) : null}
          {fieldError(result, "save-shipping", "shippingRules") ? (
            <Banner tone="critical">{fieldError(result, "save-shipping", "shippingRules")}</Banner>
          ) : null}
          {quotes.error ? <Banner tone="critical">{quotes.error}</Banner> : null}
          {rules.map((r, i) => (
            <RuleCard
              key={i}
              rule={r}
              offered={quotes.offered(r)}
              err={(f) => fieldError(result, "save-shipping", `shippingRules.${i}.${f}`)}
              onChange={(patch) => set(i, patch)}
              quoting={quotes.quoting}
              onQuote={() => quotes.ask(r)}
              onRemove={() => setRules((old) => old.filter((_, j) => j !== i))}
            />
          ))}
          <Form
            method="post"
            data-settings-part={SHIPPING_INTENT}
            onSubmit={(e) => {
              e.preventDefault();
              onSave();
            }}
          >
            <input type="hidden" name="intent" value={SHIPPING_INTENT} />
            <input type="hidden" name="shippingRules" value={JSON.stringify(rules.map(posted))} />
            <InlineStack gap="200">
              <Button
                onClick={() =>
                  setRules((old) => [
                    ...old,
                    editable({
                      to: old.some((x) => x.to === "*") ? "" : "*",
                      from: "CN",
                      strategy: "cheapest",
                      fallbacks: [],
                    }),
                  ])
                }
              >
                Add rule
              </Button>
            </InlineStack>
          </Form>
        </BlockStack>
      </Card>
    </div>
  );
}
