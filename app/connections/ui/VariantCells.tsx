/** A products-table row's cells: the supplier's variant, its shipping and the row's actions. */
import { useSearchParams } from "@remix-run/react";
import { Badge, BlockStack, Button, InlineStack, Text, Thumbnail } from "@shopify/polaris";
import { PostOnce } from "../../components/SubmitOnce";
import type { ProductsData, Row } from "./types";

export function ShippingText({ v }: { v: Row }) {
  const q = v.facts?.shipping;
  if (!q)
    return (
      <Text as="span" alignment="end" tone="subdued">
        —
      </Text>
    );
  return (
    <BlockStack gap="050" inlineAlign="end">
      <Text as="span" numeric>{`$${q.priceUsd}`}</Text>
      <Text as="span" variant="bodySm" tone="subdued">
        {q.days ? `${q.method} · ${q.days}` : q.method}
      </Text>
    </BlockStack>
  );
}

/** Choose a catalog variant, or for a connected one: add a backup supplier, disconnect. */
export function VariantActions({
  p,
  v,
  busy,
  connected,
}: {
  p: ProductsData["products"][number];
  v: Row;
  busy: boolean;
  connected: boolean;
}) {
  const [params, setParams] = useSearchParams();
  const pick = (backup: boolean) => {
    const next = new URLSearchParams(params);
    next.set("pick", v.id);
    if (backup) next.set("backup", "1");
    else next.delete("backup");
    next.delete("pid");
    // The search starts empty: the picker's heading names the variant, and the catalog's own
    // words rarely match a shop title (its last word alone found unrelated products).
    next.delete("catalogQ");
    next.delete("catalogPage");
    next.delete("cat");
    setParams(next);
  };
  if (!v.connection)
    return (
      <Button variant="plain" disabled={!connected} onClick={() => pick(false)}>
        Choose…
      </Button>
    );
  return (
    <InlineStack gap="200" wrap={false}>
      {v.facts?.flag === "cost_change" ? (
        <PostOnce>
          <input type="hidden" name="intent" value="keep-price" />
          <input type="hidden" name="variantId" value={v.id} />
          <Button
            submit
            variant="plain"
            disabled={busy}
            accessibilityLabel={`Keep the price of ${p.title} ${v.title}`}
          >
            Keep price
          </Button>
        </PostOnce>
      ) : null}
      <Button
        variant="plain"
        disabled={!connected}
        accessibilityLabel={`Add a backup supplier for ${p.title} ${v.title}`}
        onClick={() => pick(true)}
      >
        Backup…
      </Button>
      <PostOnce>
        <input type="hidden" name="intent" value="disconnect" />
        <input type="hidden" name="variantId" value={v.id} />
        <Button submit variant="plain" tone="critical" disabled={busy}>
          Disconnect
        </Button>
      </PostOnce>
    </InlineStack>
  );
}

const FLAG_TEXT: Record<string, string> = {
  removed: "Removed by the supplier",
  cost_change: "Cost changed",
};

/** The catalog variant a shop variant is connected to, with what the supplier says of it. */
export function CatalogCell({ v }: { v: Row }) {
  if (!v.connection) return <Badge>Not connected</Badge>;
  const f = v.facts;
  if (!f)
    return (
      <BlockStack gap="050">
        <Badge tone="success">Connected</Badge>
        <Text as="span" tone="subdued" variant="bodySm">
          Facts arrive with the next sync
        </Text>
      </BlockStack>
    );
  return (
    <InlineStack gap="200" blockAlign="center" wrap={false}>
      {f.image ? <Thumbnail source={f.image} alt="" size="extraSmall" /> : null}
      <BlockStack gap="050">
        <Text as="span">
          {f.productName}
          {f.variantKey ? ` · ${f.variantKey}` : ""}
        </Text>
        <InlineStack gap="100" wrap>
          {f.supplier ? (
            <Text as="span" tone="subdued" variant="bodySm">
              {f.supplier}
            </Text>
          ) : null}
          {Object.values(f.stockByCountry).some((n) => n > 0) ? (
            <Text as="span" tone="subdued" variant="bodySm">
              {`By warehouse: ${Object.entries(f.stockByCountry)
                .filter(([, n]) => n > 0)
                .slice(0, 4)
                .map(([c, n]) => `${c} ${n}`)
                .join(", ")}`}
            </Text>
          ) : null}
          {v.connection.imported ? <Badge size="small">Imported</Badge> : null}
          {f.backups ? (
            <Badge
              size="small"
              tone="info"
            >{`${f.backups} backup${f.backups > 1 ? "s" : ""}`}</Badge>
          ) : null}
          {f.flag || f.removed ? (
            <Badge size="small" tone="critical">
              {FLAG_TEXT[f.flag ?? "removed"] ?? f.flag ?? "Removed"}
            </Badge>
          ) : null}
        </InlineStack>
      </BlockStack>
    </InlineStack>
  );
}
