/** The products page's table: a row per shop variant with its supplier's variant and facts. */
import {
  BlockStack,
  Card,
  IndexTable,
  InlineStack,
  Text,
  Thumbnail,
  useBreakpoints,
} from "@shopify/polaris";
import type { ProductsData, Row } from "./types";
import { CatalogCell, ShippingText, VariantActions } from "./VariantCells";

export function VariantsTable({ data, busy }: { data: ProductsData; busy: boolean }) {
  const { smDown } = useBreakpoints();
  return (
    <Card padding="0">
      <IndexTable
        resourceName={{ singular: "variant", plural: "variants" }}
        itemCount={data.products.reduce((n, p) => n + p.variants.length, 0)}
        selectable={false}
        condensed={smDown}
        headings={[
          { title: "Product" },
          { title: "Variant" },
          { title: "SKU" },
          { title: "Supplier's variant" },
          { title: "Cost (USD)", alignment: "end" },
          { title: `Stock in ${data.stockCountries.join(", ")}`, alignment: "end" },
          { title: `Shipping to ${data.mainMarket}`, alignment: "end" },
          { title: "Margin", alignment: "end" },
          { title: "" },
        ]}
      >
        {data.products.flatMap((p) =>
          p.variants.map((v, i) => (
            <VariantRow key={v.id} p={p} v={v} i={i} data={data} busy={busy} smDown={smDown} />
          )),
        )}
      </IndexTable>
    </Card>
  );
}

function VariantRow({
  p,
  v,
  i,
  data,
  busy,
  smDown,
}: {
  p: ProductsData["products"][number];
  v: Row;
  i: number;
  data: ProductsData;
  busy: boolean;
  smDown: boolean;
}) {
  return (
    <IndexTable.Row id={v.id} position={i}>
      {smDown ? (
        <div style={{ padding: "12px 16px", width: "100%" }}>
          <BlockStack gap="150">
            <Text as="span" fontWeight="semibold">
              {`${p.title} — ${v.title}`}
            </Text>
            <CatalogCell v={v} />
            {v.facts ? (
              <Text as="span" variant="bodySm">
                {`Cost ${v.facts.costUsd ? `$${v.facts.costUsd}` : "—"} · Stock in ${data.stockCountries.join(", ")} ${v.facts.stock} · Margin ${v.facts.margin != null ? `${v.facts.margin}%` : "—"}${v.facts.shipping ? ` · Shipping $${v.facts.shipping.priceUsd}` : ""}`}
              </Text>
            ) : null}
            <VariantActions p={p} v={v} busy={busy} connected={data.connected} />
          </BlockStack>
        </div>
      ) : (
        <>
          <IndexTable.Cell>
            {i === 0 ? (
              <InlineStack gap="200" blockAlign="center">
                {p.imageUrl ? <Thumbnail source={p.imageUrl} alt="" size="small" /> : null}
                <Text as="span" fontWeight="semibold">
                  {p.title}
                </Text>
              </InlineStack>
            ) : null}
          </IndexTable.Cell>
          <IndexTable.Cell>{v.title}</IndexTable.Cell>
          <IndexTable.Cell>{v.sku || "—"}</IndexTable.Cell>
          <IndexTable.Cell>
            <CatalogCell v={v} />
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text as="span" alignment="end" numeric>
              {v.facts?.costUsd ? `$${v.facts.costUsd}` : "—"}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text
              as="span"
              alignment="end"
              numeric
              tone={v.facts && v.facts.stock <= 0 ? "critical" : undefined}
            >
              {v.facts ? v.facts.stock : "—"}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <ShippingText v={v} />
          </IndexTable.Cell>
          <IndexTable.Cell>
            <Text
              as="span"
              alignment="end"
              numeric
              tone={v.facts?.margin != null && Number(v.facts.margin) < 0 ? "critical" : undefined}
            >
              {v.facts?.margin != null ? `${v.facts.margin}%` : "—"}
            </Text>
          </IndexTable.Cell>
          <IndexTable.Cell>
            <VariantActions p={p} v={v} busy={busy} connected={data.connected} />
          </IndexTable.Cell>
        </>
      )}
    </IndexTable.Row>
  );
}
