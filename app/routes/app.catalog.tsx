import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Layout,
  Page,
  Pagination,
  Select,
  Text,
  TextField,
  Thumbnail,
  useBreakpoints,
} from "@shopify/polaris";
import { useState } from "react";
import { catalogAction, catalogPageData } from "../catalog/page.server";
import { requireAdmin } from "../pages/context.server";
import { type ActionData, FormStatus } from "../components/FormStatus";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { useSubmitOnce } from "../components/SubmitOnce";
import { stockCountries } from "../catalog/facts.server";
import { prisma } from "../db.server";
import { getSettings } from "../settings.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const [page, settings] = await Promise.all([
    catalogPageData(prisma, shop, new URL(request.url).searchParams),
    getSettings(prisma, shop),
  ]);
  // The catalog's stock is the supplier's total; the shop's counts only some warehouses.
  return { ...page, stockCountries: stockCountries(settings) };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return catalogAction(prisma, shop, await request.formData());
};

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

export default function Catalog() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const [params, setParams] = useSearchParams();
  const { smDown } = useBreakpoints();
  const [q, setQ] = useState(data.query.q);
  const [cat, setCat] = useState(data.query.cat);
  const working = data.imports.some((i) => i.status === "queued" || i.status === "running");
  // Imports run as jobs: while one waits or runs, read the page again every 2 s.
  useAutoRefresh({ every: 2000, enabled: working });
  const go = (page: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(page));
    setParams(next);
  };
  return (
    <Page
      title="Catalog"
      subtitle="Find products at your supplier and import them into your shop, priced by your pricing rule"
      secondaryActions={[{ content: "Pricing rule", url: "/app/settings#pricing" }]}
    >
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <FormStatus data={result} />
            {!data.connected ? (
              <Banner tone="warning">
                Connect a service account in <Link to="/app/settings">Settings</Link> to browse the
                catalog.
              </Banner>
            ) : null}
            {data.error ? <Banner tone="critical">{data.error}</Banner> : null}
            <Card>
              <Form method="get">
                <InlineStack gap="200" blockAlign="end" wrap>
                  <div style={{ flex: "2 1 220px" }}>
                    <TextField
                      label="Search the catalog"
                      name="q"
                      value={q}
                      onChange={setQ}
                      autoComplete="off"
                      placeholder="Product name, SKU"
                    />
                  </div>
                  <div style={{ flex: "1 1 200px" }}>
                    <Select
                      label="Category"
                      name="cat"
                      options={[{ value: "", label: "All categories" }, ...data.categories]}
                      value={cat}
                      onChange={setCat}
                    />
                  </div>
                  <Button submit disabled={!data.connected}>
                    Search
                  </Button>
                </InlineStack>
              </Form>
            </Card>
            <Card padding="0">
              <IndexTable
                resourceName={{ singular: "catalog product", plural: "catalog products" }}
                itemCount={data.results.length}
                selectable={false}
                condensed={smDown}
                emptyState={
                  <BlockStack gap="200" inlineAlign="center">
                    <Text as="p" variant="headingSm">
                      {data.connected ? "No catalog product matches" : "Nothing to show yet"}
                    </Text>
                    <Text as="p" tone="subdued">
                      {data.connected
                        ? "Try another word or category."
                        : "Connect a service account first."}
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
                {data.results.map((r, i) => (
                  <IndexTable.Row id={r.pid} key={r.pid} position={i}>
                    {smDown ? (
                      <div style={{ padding: "12px 16px", width: "100%" }}>
                        <InlineStack
                          align="space-between"
                          blockAlign="center"
                          gap="200"
                          wrap={false}
                        >
                          <ProductCell r={r} />
                          <ImportCell r={r} busy={busy} once={once} />
                        </InlineStack>
                        <Text as="p" variant="bodySm" tone="subdued">
                          {`${r.supplier || "—"} · ${r.priceUsd ? `$${r.priceUsd}` : "—"} · ${r.stock ?? "—"} in stock, all warehouses`}
                        </Text>
                      </div>
                    ) : (
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
                    )}
                  </IndexTable.Row>
                ))}
              </IndexTable>
            </Card>
            {data.connected ? (
              <Text as="p" tone="subdued" variant="bodySm" data-stock-note>
                {`Stock here is the supplier's total in all its warehouses. Your shop's stock counts only the warehouses in ${data.stockCountries.join(", ")}, as set in `}
                <Link to="/app/settings#pricing">Settings → Warehouse countries that count</Link>.
              </Text>
            ) : null}
            {data.totalPages > 1 ? (
              <InlineStack align="center" gap="300" blockAlign="center">
                <Pagination
                  hasPrevious={data.query.page > 1}
                  onPrevious={() => go(data.query.page - 1)}
                  hasNext={data.query.page < data.totalPages}
                  onNext={() => go(data.query.page + 1)}
                  label={`Page ${data.query.page} of ${data.totalPages}`}
                />
              </InlineStack>
            ) : null}
          </BlockStack>
        </Layout.Section>
        <Layout.Section variant="oneThird">
          <Card>
            <BlockStack gap="300">
              <Text as="h2" variant="headingMd">
                Imports
              </Text>
              {data.imports.length === 0 ? (
                <Text as="p" tone="subdued">
                  Products you import show here with their progress.
                </Text>
              ) : (
                data.imports.map((i) => (
                  <BlockStack key={i.id} gap="100">
                    <InlineStack align="space-between" blockAlign="center" gap="200">
                      <Text as="span" fontWeight="semibold" truncate>
                        {i.title}
                      </Text>
                      <span data-import-status={i.status}>
                        <Badge tone={STATUS_TONE[i.status]}>
                          {STATUS_TEXT[i.status] ?? i.status}
                        </Badge>
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
                ))
              )}
            </BlockStack>
          </Card>
        </Layout.Section>
      </Layout>
    </Page>
  );
}

type Result = ReturnType<typeof useLoaderData<typeof loader>>["results"][number];

function ProductCell({ r }: { r: Result }) {
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

function ImportCell({
  r,
  busy,
  once,
}: {
  r: Result;
  busy: boolean;
  once: ReturnType<typeof useSubmitOnce>;
}) {
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
