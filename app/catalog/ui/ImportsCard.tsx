/** The Catalog page's latest imports, each with where it stands (waiting, importing, done). */
import { Badge, BlockStack, Card, InlineStack, Text } from "@shopify/polaris";
import type { CatalogImport } from "./types";

const STATUS_TONE: Record<string, "success" | "critical" | "attention" | "info"> = {
  done: "success",
  failed: "critical",
  running: "attention",
  queued: "info",
};
const STATUS_TEXT: Record<string, string> = {
  done: "Imported",
  failed: "Failed",
  running: "Importing…",
  queued: "Waiting",
};

export function ImportsCard({ imports }: { imports: CatalogImport[] }) {
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          Imports
        </Text>
        {imports.length === 0 ? (
          <Text as="p" tone="subdued">
            Products you import show here with their progress.
          </Text>
        ) : (
          imports.map((i) => <ImportLine key={i.id} i={i} />)
        )}
      </BlockStack>
    </Card>
  );
}

function ImportLine({ i }: { i: CatalogImport }) {
  return (
    <BlockStack gap="100">
      <InlineStack align="space-between" blockAlign="center" gap="200">
        <Text as="span" fontWeight="semibold" truncate>
          {i.title}
        </Text>
        <span data-import-status={i.status}>
          <Badge tone={STATUS_TONE[i.status]}>{STATUS_TEXT[i.status] ?? i.status}</Badge>
        </span>
      </InlineStack>
      <Text as="p" tone="subdued" variant="bodySm">
        {i.status === "done"
          ? `${i.variants} variants in your shop, connected and stocked`
          : i.error
            ? i.error
            : i.variants
              ? `${i.variants} variants`
              : ""}
      </Text>
    </BlockStack>
  );
}
