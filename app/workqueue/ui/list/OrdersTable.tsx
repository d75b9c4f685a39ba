/** The orders list's table (selectable rows, wide or condensed), or what stands in when empty. */
import {
  BlockStack,
  Box,
  IndexTable,
  type IndexTableProps,
  Text,
  useBreakpoints,
  type useIndexResourceState,
} from "@shopify/polaris";
import { CondensedRow, WideRow } from "./OrderRows";
import type { Filter, OrdersListData } from "./types";

const HEADINGS: IndexTableProps["headings"] = [
  { title: "Order" },
  { title: "Customer" },
  { title: "State" },
  { title: "Why" },
  { title: "Shop total", alignment: "end" },
  { title: "Service cost", alignment: "end" },
  { title: "Shipping" },
  { title: "Margin", alignment: "end" },
  { title: "Tracking" },
];

/** The table's selection, from Polaris's `useIndexResourceState`. */
export type Selection = Pick<
  ReturnType<typeof useIndexResourceState>,
  "selectedResources" | "allResourcesSelected" | "handleSelectionChange"
>;

/** The orders, a row each (stacked on a phone), selectable for the bulk actions. */
export function OrdersTable({
  data,
  selection,
}: {
  data: Pick<OrdersListData, "orders" | "timeZone" | "filter" | "rangeError">;
  selection: Selection;
}) {
  const { smDown } = useBreakpoints();
  const { selectedResources, allResourcesSelected, handleSelectionChange } = selection;
  if (data.orders.length === 0) {
    return <NoOrders filter={data.filter} rangeError={data.rangeError} />;
  }
  return (
    <IndexTable
      resourceName={{ singular: "order", plural: "orders" }}
      itemCount={data.orders.length}
      selectedItemsCount={allResourcesSelected ? "All" : selectedResources.length}
      onSelectionChange={handleSelectionChange}
      condensed={smDown}
      headings={HEADINGS}
    >
      {data.orders.map((o, i) => (
        <IndexTable.Row
          id={o.id}
          key={o.id}
          position={i}
          selected={selectedResources.includes(o.id)}
        >
          {smDown ? (
            <CondensedRow o={o} timeZone={data.timeZone} />
          ) : (
            <WideRow o={o} timeZone={data.timeZone} />
          )}
        </IndexTable.Row>
      ))}
    </IndexTable>
  );
}

/** An empty list: nothing matches the search, or no orders in this view yet. */
function NoOrders({ filter, rangeError }: { filter: Filter; rangeError: string | null }) {
  const searched = filter.q || filter.from || filter.to;
  return (
    <Box padding="600">
      <BlockStack gap="200" inlineAlign="center">
        <Text as="h2" variant="headingMd">
          {searched ? "No orders match" : "No orders here"}
        </Text>
        <Text as="p" tone="subdued">
          {rangeError
            ? rangeError
            : searched
              ? "Try another search or date range."
              : "Orders appear as soon as the shop sends them."}
        </Text>
      </BlockStack>
    </Box>
  );
}
