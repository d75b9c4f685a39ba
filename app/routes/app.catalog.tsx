/**
 * The Catalog page (app/catalog/page.server.ts): browse the supplier's catalog and import a
 * product into the shop; its cards are in app/catalog/ui/.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import { Banner, BlockStack, InlineStack, Layout, Page, Pagination, Text } from "@shopify/polaris";
import { catalogAction, catalogPageData } from "../catalog/page.server";
import { CatalogResultsCard } from "../catalog/ui/CatalogResultsCard";
import { CatalogSearchCard } from "../catalog/ui/CatalogSearchCard";
import { ImportsCard } from "../catalog/ui/ImportsCard";
import { requireAdmin } from "../pages/context.server";
import { type ActionData, FormStatus } from "../components/FormStatus";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { useSubmitOnce } from "../components/SubmitOnce";
import { stockCountries } from "../catalog/facts.server";
import { prisma } from "../db.server";
import { getSettings } from "../settings.server";
import { readForm } from "../page-kit/forms.server";

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
  return catalogAction(prisma, shop, await readForm(request));
};

export default function Catalog() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const [params, setParams] = useSearchParams();
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
            <CatalogSearchCard
              query={data.query}
              categories={data.categories}
              connected={data.connected}
            />
            <CatalogResultsCard
              results={data.results}
              connected={data.connected}
              busy={busy}
              once={once}
            />
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
          <ImportsCard imports={data.imports} />
        </Layout.Section>
      </Layout>
    </Page>
  );
}
