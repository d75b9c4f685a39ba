/**
 * One rule of the shipping rules editor (./ShippingRules.tsx): its destination and origin, how
 * the method is chosen, a price cap and a fallback, the methods the service offered on its
 * route, and its buttons (Show methods, Remove rule).
 */
import {
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
import {
  type Option,
  type RuleRow,
  STRATEGY_OPTIONS,
  days,
  methodOptions,
  sampleTo,
} from "./rule-rows";

export interface RuleCardProps {
  rule: RuleRow;
  /** What the service offered on the rule's route (not asked yet: undefined). */
  offered: Option[] | undefined;
  /** The refusal's error for one of the rule's fields. */
  err: (field: string) => string | undefined;
  onChange: (patch: Partial<RuleRow>) => void;
  /** A quote is on its way: Show methods waits. */
  quoting: boolean;
  onQuote: () => void;
  onRemove: () => void;
}

export function RuleCard({ rule: r, offered, err, onChange: set, ...p }: RuleCardProps) {
  return (
    <Card background="bg-surface-secondary">
      <FormLayout>
        <FormLayout.Group condensed>
          <TextField
            label="Destination"
            autoComplete="off"
            value={r.to}
            onChange={(v) => set({ to: v.toUpperCase() })}
            helpText="A country code (DE), EU, or * for every other destination"
            error={err("to")}
          />
          <TextField
            label="Ships from"
            autoComplete="off"
            value={r.from}
            onChange={(v) => set({ from: v.toUpperCase() })}
            error={err("from")}
          />
        </FormLayout.Group>
        <Select
          label="Choose the method"
          options={STRATEGY_OPTIONS}
          value={r.strategy}
          onChange={(v) => set({ strategy: v })}
          error={err("strategy")}
        />
        {r.strategy === "cheapest_within" ? (
          <TextField
            label="Within (days)"
            type="number"
            autoComplete="off"
            value={String(r.days ?? "")}
            onChange={(v) => set({ days: v })}
            error={err("days")}
          />
        ) : null}
        {r.strategy === "named" ? (
          <Select
            label="Method"
            options={methodOptions(offered, r.method)}
            value={r.method ?? ""}
            onChange={(v) => set({ method: v })}
            error={err("method")}
            helpText={offered ? undefined : "Show methods to choose from the service's offer"}
          />
        ) : null}
        <FormLayout.Group condensed>
          <TextField
            label="Price cap (USD)"
            autoComplete="off"
            inputMode="decimal"
            value={r.maxPriceUsd ?? ""}
            onChange={(v) => set({ maxPriceUsd: v })}
            helpText="Optional: no method above this price"
            error={err("maxPriceUsd")}
          />
          <FallbackSelect rule={r} offered={offered} err={err} onChange={set} />
        </FormLayout.Group>
        {offered ? <OfferedMethods rule={r} offered={offered} /> : null}
        <InlineStack gap="200">
          <Button disabled={p.quoting || !/^[A-Z]{2}$/.test(r.from)} onClick={p.onQuote}>
            Show methods
          </Button>
          <Button tone="critical" variant="plain" onClick={p.onRemove}>
            Remove rule
          </Button>
        </InlineStack>
      </FormLayout>
    </Card>
  );
}

/** The method used when the choice is not offered or the service refuses it ("None": none). */
function FallbackSelect({
  rule: r,
  offered,
  err,
  onChange: set,
}: Pick<RuleCardProps, "rule" | "offered" | "err" | "onChange">) {
  return (
    <Select
      label="Fallback method"
      options={methodOptions(offered, r.fallbacks[0]).map((o) =>
        o.value === "" ? { label: "None", value: "" } : o,
      )}
      value={r.fallbacks[0] ?? ""}
      onChange={(v) => set({ fallbacks: v ? [v] : [] })}
      error={err("fallbacks")}
      helpText="Used when the choice is not offered or the service refuses it"
    />
  );
}

/** The methods the service offered on the rule's route, with price and transit days. */
function OfferedMethods({ rule: r, offered }: { rule: RuleRow; offered: Option[] }) {
  return (
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
  );
}
