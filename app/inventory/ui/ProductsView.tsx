/**
 * The Inventory page's products: one row per product with its variants, stock, price and stock
 * by warehouse (one condensed line on a phone), and the variants of the product opened.
 */
import { Link } from "@remix-run/react";
import {
  BlockStack,
  Box,
  Card,
  IndexTable,
  InlineStack,
  Text,
  Thumbnail,
  useBreakpoints,
} from "@shopify/polaris";
import { ImageIcon } from "@shopify/polaris-icons";
import { KeyboardDataTable } from "../../components/KeyboardDataTable";
import type { InventoryView, WithParam } from "./types";

type ProductsTab = Extract<InventoryView, { tab: "products" }>;
type Product = ProductsTab["products"][number];

const countries = (w: { country: string; stock: number; inTransit: number }[]) =>
  w
    .map((x) => `${x.country} ${x.stock}${x.inTransit ? ` (+${x.inTransit} coming)` : ""}`)
    .join(" · ") || "—";

export function ProductsView({ view, withParam }: { view: ProductsTab; withParam: WithParam }) {
  const { smDown } = useBreakpoints();
  return (
    <>
      {view.variants ? <VariantsCard variants={view.variants} of={view.variantsOf} /> : null}
      <IndexTable
        resourceName={{ singular: "product", plural: "products" }}
        itemCount={view.products.length}
        selectable={false}
        condensed={smDown}
        headings={[
          { title: "Product" },
          { title: "Variants", alignment: "end" },
          { title: "In stock", alignment: "end" },
          { title: "Price (USD)", alignment: "end" },
          { title: "By warehouse" },
        ]}
      >
        {view.products.map((p, i) => (
          <IndexTable.Row id={p.id} key={p.id} position={i}>
            <ProductCell p={p} withParam={withParam} smDown={smDown} />
            {smDown ? null : <CountCells p={p} />}
          </IndexTable.Row>
        ))}
      </IndexTable>
    </>
  );
}

function VariantsCard({
  variants,
  of,
}: {
  variants: NonNullable<ProductsTab["variants"]>;
  of: ProductsTab["variantsOf"];
}) {
  return (
    <Box padding="300">
      <Card>
        <BlockStack gap="200">
          <Text as="h2" variant="headingMd">
            {of ? `Variants of ${of}` : "Variants"}
          </Text>
          <KeyboardDataTable
            label="Variants"
            columnContentTypes={["text", "text", "numeric", "text"]}
            headings={["SKU", "Variant", "Price (USD)", "Stock by warehouse"]}
            rows={variants.map((v) => [v.sku, v.name, v.price ?? "—", countries(v.warehouses)])}
          />
        </BlockStack>
      </Card>
    </Box>
  );
}

/** The product's picture and name (a link that opens its variants). */
function ProductCell({
  p,
  withParam,
  smDown,
}: {
  p: Product;
  withParam: WithParam;
  smDown: boolean | undefined;
}) {
  return (
    <IndexTable.Cell>
      <InlineStack gap="200" blockAlign="center" wrap={false}>
        <Thumbnail source={p.image ?? ImageIcon} alt="" size="small" />
        <BlockStack gap="050">
          <Link to={withParam("product", p.id)}>{p.name}</Link>
          {smDown ? (
            <Text
              as="span"
              tone="subdued"
            >{`${p.stock} in stock · ${countries(p.warehouses)}`}</Text>
          ) : p.spu ? (
            <Text as="span" tone="subdued" variant="bodySm">{`SPU ${p.spu}`}</Text>
          ) : null}
        </BlockStack>
      </InlineStack>
    </IndexTable.Cell>
  );
}

function CountCells({ p }: { p: Product }) {
  return (
    <>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {p.variants}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {p.stock}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {p.price ?? "—"}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>{countries(p.warehouses)}</IndexTable.Cell>
    </>
  );
}
