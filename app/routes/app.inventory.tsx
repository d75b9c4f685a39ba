/**
 * The read-only Inventory page (app/inventory/page.server.ts): the account's own stock in the
 * service's warehouses, by product, by warehouse or as stock records; its parts are in
 * app/inventory/ui/.
 */
import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Banner, BlockStack, Box, Card, Page } from "@shopify/polaris";
import { requireAdmin } from "../pages/context.server";
import { ListFooter } from "../components/ListFooter";
import { SearchBar } from "../components/SearchBar";
import { ViewTabs } from "../components/ViewTabs";
import { prisma } from "../db.server";
import { type InventoryTab, inventoryPageData } from "../inventory/page.server";
import { VariantsSkeleton } from "../inventory/ui/VariantsSkeleton";
import { ViewBody } from "../inventory/ui/ViewBody";
import { WarehouseCard } from "../inventory/ui/WarehouseCard";
import { shopTimeZone } from "../orders/shop-zone.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const [data, timeZone] = await Promise.all([
    inventoryPageData(prisma, shop, new URL(request.url).searchParams),
    shopTimeZone(prisma, shop),
  ]);
  return { ...data, timeZone };
};

const TABS: Array<{ id: InventoryTab; label: string }> = [
  { id: "products", label: "Products" },
  { id: "stock", label: "Stock by warehouse" },
  { id: "records", label: "Stock records" },
];
const SEARCH_HINT: Record<InventoryTab, string> = {
  products: "Product name or SKU",
  stock: "SKU or product name",
  records: "Exact SKU",
};

export default function Inventory() {
  const { query, view, warehouse, error, timeZone } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const href = (tab: InventoryTab) => (tab === "products" ? "?" : `?tab=${tab}`);
  // A product being opened (its variants read from the service): its skeleton shows at once.
  const navigation = useNavigation();
  const next = navigation.state === "loading" ? navigation.location : undefined;
  const nextProduct = next ? new URLSearchParams(next.search).get("product") : null;
  const opening =
    next?.pathname === "/app/inventory" && nextProduct !== null && nextProduct !== query.product;
  const withParam = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    next.set(k, v);
    return `?${next.toString()}`;
  };
  return (
    <Page
      title="Inventory"
      subtitle="Your own stock kept in the service's warehouses. Read only: the service keeps it."
      fullWidth
    >
      <BlockStack gap="400">
        {error ? (
          <Banner tone="critical" title="The inventory cannot be shown">
            {error}
          </Banner>
        ) : null}
        {warehouse ? <WarehouseCard warehouse={warehouse} /> : null}
        <Card padding="0">
          <ViewTabs label="Inventory views" views={TABS} current={query.tab} href={href} />
          <Box padding="300">
            <SearchBar
              label="Search the inventory"
              q={query.q}
              placeholder={SEARCH_HINT[query.tab]}
              keep={{ tab: query.tab === "products" ? null : query.tab }}
              clearUrl={href(query.tab)}
            />
          </Box>
          {opening ? <VariantsSkeleton /> : null}
          {view ? (
            <ViewBody
              view={view}
              withParam={withParam}
              searched={Boolean(query.q)}
              timeZone={timeZone}
            />
          ) : null}
        </Card>
        {view ? (
          <ListFooter
            total={view.total}
            noun={
              view.tab === "products" ? "product" : view.tab === "stock" ? "stock line" : "record"
            }
            page={query.page}
            pages={view.pages}
          />
        ) : null}
      </BlockStack>
    </Page>
  );
}
