/**
 * The Catalog page's results: one row per catalog product with its supplier, cost and stock,
 * and its Import button (or where its import stands); one condensed line each on a phone.
 */
import { Form } from "@remix-run/react";
import {
  Badge,
  BlockStack,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Text,
  Thumbnail,
  useBreakpoints,
} from "@shopify/polaris";
import type { useSubmitOnce } from "../../components/SubmitOnce";
import type { CatalogResult } from "./types";

type Once = ReturnType<typeof useSubmitOnce>;

export function CatalogResultsCard({
  results,
  connected,
  busy,
  once,
}: {
  results: CatalogResult[];
  connected: boolean;
  busy: boolean;
  once: Once;
}) {
  const { smDown } = useBreakpoints();
  return (
    <Card padding="0">
      <IndexTable
        resourceName={{ singular: "catalog product", plural: "catalog products" }}
        itemCount={results.length}
        selectable={false}
        condensed={smDown}
        emptyState={
          <BlockStack gap="200" inlineAlign="center">
            <Text as="p" variant="headingSm">
              {connected ? "No catalog product matches" : "Nothing to show yet"}
            </Text>
            <Text as="p" tone="subdued">
              {connected ? "Try another word or category." : "Connect a service account first."}
            </Text>
          </BlockStack>
        }
        headings={[
          { title: "Product" },
          { title: "Supplier" },
          { title: "Cost (USD)", alignment: "end" },
          { title: "Stock, all warehouses", alignment: "end" },
          { title: "" },
        ]}
      >
        {results.map((r, i) => (
          <IndexTable.Row id={r.pid} key={r.pid} position={i}>
            {smDown ? (
              <CompactRow r={r} busy={busy} once={once} />
            ) : (
              <RowCells r={r} busy={busy} once={once} />
            )}
          </IndexTable.Row>
        ))}
      </IndexTable>
    </Card>
  );
}

/** A result on a phone: the product and its button, then one line of facts. */
function CompactRow({ r, busy, once }: { r: CatalogResult; busy: boolean; once: Once }) {
  return (
    <div style={{ padding: "12px 16px", width: "100%" }}>
      <InlineStack align="space-between" blockAlign="center" gap="200" wrap={false}>
        <ProductCell r={r} />
        <ImportCell r={r} busy={busy} once={once} />
      </InlineStack>
      <Text as="p" variant="bodySm" tone="subdued">
        {`${r.supplier || "—"} · ${r.priceUsd ? `$${r.priceUsd}` : "—"} · ${r.stock ?? "—"} in stock, all warehouses`}
      </Text>
    </div>
  );
}

/** A result on a wider screen: one cell per column. */
function RowCells({ r, busy, once }: { r: CatalogResult; busy: boolean; once: Once }) {
  return (
    <>
      <IndexTable.Cell>
        <ProductCell r={r} />
      </IndexTable.Cell>
      <IndexTable.Cell>{r.supplier || "—"}</IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {r.priceUsd ? `$${r.priceUsd}` : "—"}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {r.stock ?? "—"}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <ImportCell r={r} busy={busy} once={once} />
      </IndexTable.Cell>
    </>
  );
}

function ProductCell({ r }: { r: CatalogResult }) {
  return (
    <InlineStack gap="200" blockAlign="center" wrap={false}>
      {r.image ? <Thumbnail source={r.image} alt="" size="small" /> : null}
      <BlockStack gap="050">
        <Text as="span" fontWeight="semibold">
          {r.name}
        </Text>
        {r.options ? (
          <Text as="span" tone="subdued" variant="bodySm">
            {r.options}
          </Text>
        ) : null}
      </BlockStack>
    </InlineStack>
  );
}

function ImportCell({ r, busy, once }: { r: CatalogResult; busy: boolean; once: Once }) {
  if (r.imported) return <Badge tone="success">Imported</Badge>;
  if (r.importing) return <Badge tone="attention">Importing…</Badge>;
  return (
    <Form method="post" onSubmit={once.onSubmit}>
      <input type="hidden" name="intent" value="import" />
      <input type="hidden" name="pid" value={r.pid} />
      <input type="hidden" name="name" value={r.name} />
      <input type="hidden" name="formKey" value={once.key} />
      <Button submit size="slim" disabled={busy} accessibilityLabel={`Import ${r.name}`}>
        Import
      </Button>
    </Form>
  );
}
