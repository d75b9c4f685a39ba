/**
 * The shipping rules editor of the settings page: one row per destination, the method chosen
 * from the service's freight quote (never free text): "Show methods" asks the service what it
 * offers on the route, with price and transit days.
 */
import { Form, useFetcher } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Button,
  Card,
  FormLayout,
  InlineStack,
  List,
  Select,
  Text,
  TextField,
} from "@shopify/polaris";
import { useEffect, useState } from "react";
import { type ActionData, FormStatus, fieldError } from "../../components/FormStatus";
import { editingProps } from "../../components/useAutoRefresh";
import type { Draft } from "../../components/useDraft";

interface Option {
  logisticName: string;
  priceUsd: string;
  minDays: number | null;
  maxDays: number | null;
}
export interface RuleRow {
  to: string;
  from: string;
  strategy: string;
  days?: number | string;
  method?: string;
  maxPriceUsd?: string;
  fallbacks: string[];
}
type QuoteResult = {
  ok: boolean;
  intent: string;
  quote?: { to: string; from: string; options: Option[] };
  errors?: Record<string, string>;
};

const STRATEGY_OPTIONS = [
  { label: "Cheapest", value: "cheapest" },
  { label: "Fastest", value: "fastest" },
  { label: "Cheapest within a number of days", value: "cheapest_within" },
  { label: "A method I choose", value: "named" },
];

const sampleTo = (to: string) => (to === "*" ? "US" : to === "EU" ? "AT" : to);
const routeKey = (from: string, to: string) =>
  `${from.toUpperCase()}>${sampleTo(to.toUpperCase())}`;
const days = (o: Option) =>
  o.minDays == null || o.maxDays == null ? "" : `, ${o.minDays}–${o.maxDays} days`;

/** A rule as the editor holds it: every optional field present, as text (compared as saved). */
function editable(r: RuleRow): RuleRow {
  return {
    to: r.to,
    from: r.from,
    strategy: r.strategy,
    days: r.days == null ? "" : String(r.days),
    method: r.method ?? "",
    maxPriceUsd: r.maxPriceUsd ?? "",
    fallbacks: r.fallbacks ?? [],
  };
}

/** A rule as it is posted: the fields its strategy does not use, and empty ones, left out. */
function posted(r: RuleRow): RuleRow {
  return {
    to: r.to,
    from: r.from,
    strategy: r.strategy,
    ...(r.strategy === "cheapest_within" && r.days !== "" ? { days: r.days } : {}),
    ...(r.strategy === "named" && r.method ? { method: r.method } : {}),
    ...(r.maxPriceUsd ? { maxPriceUsd: r.maxPriceUsd } : {}),
    fallbacks: r.fallbacks,
  };
}

/** The saved rules as the editor holds them (its draft starts from these). */
export function shippingSaved(rules: RuleRow[]): RuleRow[] {
  return rules.map(editable);
}

export const SHIPPING_INTENT = "save-shipping";

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
  const [quotes, setQuotes] = useState<Record<string, Option[]>>({});
  const fetcher = useFetcher<QuoteResult>();
  useEffect(() => {
    const q = fetcher.data?.quote;
    if (q) setQuotes((old) => ({ ...old, [routeKey(q.from, q.to)]: q.options }));
  }, [fetcher.data]);
  const err = (i: number, f: string) =>
    fieldError(result, "save-shipping", `shippingRules.${i}.${f}`);
  const set = (i: number, patch: Partial<RuleRow>) =>
    setRules((old) => old.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const methodOptions = (r: RuleRow, current?: string) => {
    const offered = quotes[routeKey(r.from, r.to)] ?? [];
    const opts = offered.map((o) => ({
      label: `${o.logisticName} (${o.priceUsd} USD${days(o)})`,
      value: o.logisticName,
    }));
    if (current && !offered.some((o) => o.logisticName === current)) {
      opts.unshift({ label: current, value: current });
    }
    return [{ label: "Choose…", value: "" }, ...opts];
  };
  const quoteError = fetcher.data && !fetcher.data.ok ? fetcher.data.errors?.quote : undefined;
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
          {quoteError ? <Banner tone="critical">{quoteError}</Banner> : null}
          {rules.map((r, i) => {
            const offered = quotes[routeKey(r.from, r.to)];
            return (
              <Card key={i} background="bg-surface-secondary">
                <FormLayout>
                  <FormLayout.Group condensed>
                    <TextField
                      label="Destination"
                      autoComplete="off"
                      value={r.to}
                      onChange={(v) => set(i, { to: v.toUpperCase() })}
                      helpText="A country code (DE), EU, or * for every other destination"
                      error={err(i, "to")}
                    />
                    <TextField
                      label="Ships from"
                      autoComplete="off"
                      value={r.from}
                      onChange={(v) => set(i, { from: v.toUpperCase() })}
                      error={err(i, "from")}
                    />
                  </FormLayout.Group>
                  <Select
                    label="Choose the method"
                    options={STRATEGY_OPTIONS}
                    value={r.strategy}
                    onChange={(v) => set(i, { strategy: v })}
                    error={err(i, "strategy")}
                  />
                  {r.strategy === "cheapest_within" ? (
                    <TextField
                      label="Within (days)"
                      type="number"
                      autoComplete="off"
                      value={String(r.days ?? "")}
                      onChange={(v) => set(i, { days: v })}
                      error={err(i, "days")}
                    />
                  ) : null}
                  {r.strategy === "named" ? (
                    <Select
                      label="Method"
                      options={methodOptions(r, r.method)}
                      value={r.method ?? ""}
                      onChange={(v) => set(i, { method: v })}
                      error={err(i, "method")}
                      helpText={
                        offered ? undefined : "Show methods to choose from the service's offer"
                      }
                    />
                  ) : null}
                  <FormLayout.Group condensed>
                    <TextField
                      label="Price cap (USD)"
                      autoComplete="off"
                      inputMode="decimal"
                      value={r.maxPriceUsd ?? ""}
                      onChange={(v) => set(i, { maxPriceUsd: v })}
                      helpText="Optional: no method above this price"
                      error={err(i, "maxPriceUsd")}
                    />
                    <Select
                      label="Fallback method"
                      options={methodOptions(r, r.fallbacks[0]).map((o) =>
                        o.value === "" ? { label: "None", value: "" } : o,
                      )}
                      value={r.fallbacks[0] ?? ""}
                      onChange={(v) => set(i, { fallbacks: v ? [v] : [] })}
                      error={err(i, "fallbacks")}
                      helpText="Used when the choice is not offered or the service refuses it"
                    />
                  </FormLayout.Group>
                  {offered ? (
                    <BlockStack gap="100">
                      <Text as="p" variant="bodySm" tone="subdued">
                        Offered from {r.from} to {sampleTo(r.to)}:
                      </Text>
                      <List>
                        {offered.map((o) => (
                          <List.Item key={o.logisticName}>
                            {o.logisticName}: {o.priceUsd} USD{days(o)}
                          </List.Item>
                        ))}
                        {offered.length === 0 ? <List.Item>nothing</List.Item> : null}
                      </List>
                    </BlockStack>
                  ) : null}
                  <InlineStack gap="200">
                    <Button
                      disabled={fetcher.state !== "idle" || !/^[A-Z]{2}$/.test(r.from)}
                      onClick={() =>
                        fetcher.submit(
                          { intent: "quote", from: r.from, to: sampleTo(r.to) },
                          { method: "post" },
                        )
                      }
                    >
                      Show methods
                    </Button>
                    <Button
                      tone="critical"
                      variant="plain"
                      onClick={() => setRules((old) => old.filter((_, j) => j !== i))}
                    >
                      Remove rule
                    </Button>
                  </InlineStack>
                </FormLayout>
              </Card>
            );
          })}
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
