import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Box,
  Card,
  IndexTable,
  InlineStack,
  Page,
  SkeletonBodyText,
  Text,
  Thumbnail,
  useBreakpoints,
} from "@shopify/polaris";
import { ImageIcon } from "@shopify/polaris-icons";
import { describeSvcError, isOutage } from "../svc-account/account.server";
import {
  PageDeadlineError,
  deadlineText,
  pageClientForShop,
  withinPageDeadline,
} from "../page-kit/page-reads.server";
import { requireAdmin } from "../pages/context.server";
import { Facts } from "../components/Facts";
import { KeyboardDataTable } from "../components/KeyboardDataTable";
import { ListFooter } from "../components/ListFooter";
import { SearchBar } from "../components/SearchBar";
import { ViewTabs } from "../components/ViewTabs";
import { formatDateTime } from "../components/format";
import { prisma } from "../db.server";
import {
  type InventoryTab,
  inventoryQuery,
  inventoryView,
  namedWarehouse,
} from "../inventory/page.server";
import { getSettings } from "../settings.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const query = inventoryQuery(new URL(request.url).searchParams);
  const client = await pageClientForShop(prisma, shop);
  if (!client)
    return {
      query,
      view: null,
      warehouse: null,
      error: "Connect a service account first (Settings).",
    };
  const { storageId } = await getSettings(prisma, shop);
  try {
    // Both reads together, bounded: a slow service never holds the page.
    const [view, warehouse] = await withinPageDeadline(
      Promise.all([
        inventoryView(client, query),
        namedWarehouse(client, storageId).catch(() => null),
      ]),
      "The service's warehouses",
    );
    return { query, view, warehouse, error: null };
  } catch (error) {
    const text =
      error instanceof PageDeadlineError
        ? deadlineText(error)
        : isOutage(error)
          ? "The service is not answering now. Nothing is lost: try again in a few minutes."
          : describeSvcError(error);
    return { query, view: null, warehouse: null, error: text };
  }
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

type Data = ReturnType<typeof useLoaderData<typeof loader>>;
type View = NonNullable<Data["view"]>;

const countries = (w: { country: string; stock: number; inTransit: number }[]) =>
  w
    .map((x) => `${x.country} ${x.stock}${x.inTransit ? ` (+${x.inTransit} coming)` : ""}`)
    .join(" · ") || "—";

export default function Inventory() {
  const { query, view, warehouse, error } = useLoaderData<typeof loader>();
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
        {warehouse ? (
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                {`Your warehouse: ${warehouse.name}`}
              </Text>
              <Facts
                items={[
                  ["Address", warehouse.address || "—"],
                  ["Contact", warehouse.contact ?? "—"],
                  ["Self pickup", warehouse.selfPickup ? "Yes" : "No"],
                  ["Carriers", warehouse.carriers.join(", ") || "—"],
                ]}
              />
            </BlockStack>
          </Card>
        ) : null}
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
          {opening ? (
            <Box padding="300">
              <div data-variants-skeleton aria-busy="true">
                <Card>
                  <BlockStack gap="200">
                    <Text as="h2" variant="headingMd">
                      Reading the product&apos;s variants…
                    </Text>
                    <SkeletonBodyText lines={4} />
                  </BlockStack>
                </Card>
              </div>
            </Box>
          ) : null}
          {view ? <ViewBody view={view} withParam={withParam} searched={Boolean(query.q)} /> : null}
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

function Empty({ searched, what }: { searched: boolean; what: string }) {
  return (
    <Box padding="600">
      <BlockStack gap="200" inlineAlign="center">
        <Text as="h2" variant="headingMd">
          {searched ? `No ${what} match` : `No ${what} yet`}
        </Text>
        <Text as="p" tone="subdued" alignment="center">
          {searched
            ? "Try another search."
            : "Stock you send to the service's warehouses (or buy into them) shows here."}
        </Text>
      </BlockStack>
    </Box>
  );
}

function ViewBody({
  view,
  withParam,
  searched,
}: {
  view: View;
  withParam: (k: string, v: string) => string;
  searched: boolean;
}) {
  const { smDown } = useBreakpoints();
  if (view.tab === "products") {
    if (view.products.length === 0) return <Empty searched={searched} what="products" />;
    return (
      <>
        {view.variants ? (
          <Box padding="300">
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  {view.variantsOf ? `Variants of ${view.variantsOf}` : "Variants"}
                </Text>
                <KeyboardDataTable
                  label="Variants"
                  columnContentTypes={["text", "text", "numeric", "text"]}
                  headings={["SKU", "Variant", "Price (USD)", "Stock by warehouse"]}
                  rows={view.variants.map((v) => [
                    v.sku,
                    v.name,
                    v.price ?? "—",
                    countries(v.warehouses),
                  ])}
                />
              </BlockStack>
            </Card>
          </Box>
        ) : null}
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
              {smDown ? null : (
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
              )}
            </IndexTable.Row>
          ))}
        </IndexTable>
      </>
    );
  }
  if (view.tab === "stock") {
    if (view.rows.length === 0) return <Empty searched={searched} what="stock lines" />;
    return (
      <>
        {view.batches ? (
          <Box padding="300">
            <Card>
              <BlockStack gap="200">
                <Text as="h2" variant="headingMd">
                  Inbound batches
                </Text>
                <KeyboardDataTable
                  label="Inbound batches"
                  columnContentTypes={["text", "text", "numeric", "numeric", "numeric", "numeric"]}
                  headings={[
                    "Stock order",
                    "Warehouse",
                    "Received",
                    "Available",
                    "In transit",
                    "Locked",
                  ]}
                  rows={view.batches.map((b) => [
                    b.orderCode,
                    b.warehouse,
                    b.received,
                    b.available,
                    b.inTransit,
                    b.locked,
                  ])}
                />
              </BlockStack>
            </Card>
          </Box>
        ) : null}
        <div>
          <KeyboardDataTable
            label="Stock by warehouse"
            columnContentTypes={[
              "text",
              "text",
              "text",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
              "numeric",
            ]}
            headings={[
              "SKU",
              "Product",
              "Warehouse",
              "Available",
              "In transit",
              "Locked",
              "In use",
              "In dispute",
              "Frozen",
            ]}
            rows={view.rows.map((r) => [
              <Link key={r.key} to={withParam("sku", r.sku)}>
                {r.sku}
              </Link>,
              r.variant ? `${r.name} (${r.variant})` : r.name,
              r.warehouse,
              r.available,
              r.inTransit,
              r.locked,
              r.inUse,
              r.disputed,
              r.frozen,
            ])}
          />
        </div>
      </>
    );
  }
  if (view.records.length === 0) return <Empty searched={searched} what="records" />;
  return (
    <div style={{ overflowX: "auto" }}>
      <KeyboardDataTable
        label="Stock records"
        columnContentTypes={["text", "text", "numeric", "text", "text", "numeric"]}
        headings={["When", "What", "Change", "Warehouse", "Order", "Available after"]}
        rows={view.records.map((r) => [
          formatDateTime(r.at),
          r.what,
          r.change > 0 ? `+${r.change}` : String(r.change),
          r.warehouse,
          r.order ?? "—",
          r.available,
        ])}
      />
    </div>
  );
}
