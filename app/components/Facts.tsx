import { InlineGrid, Text } from "@shopify/polaris";
import type { ReactNode } from "react";

/** Label/value pairs in two columns (labels subdued), for the side cards of a page. */
export function Facts({ items }: { items: ReadonlyArray<readonly [string, ReactNode]> }) {
  return (
    <InlineGrid columns={2} gap="100">
      {items.map(([label, value]) => [
        <Text key={`${label}:k`} as="span" tone="subdued">
          {label}
        </Text>,
        <Text key={`${label}:v`} as="span">
          {value}
        </Text>,
      ])}
    </InlineGrid>
  );
}
