/**
 * The products page: the shop's variants with their supplier's variant, the picker and the
 * actions. The work is app/connections/products-page.server.ts (data) and
 * app/connections/products-actions.server.ts; the cards are app/connections/ui/.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import { Banner, BlockStack, Button, InlineStack, Layout, Page, Text } from "@shopify/polaris";
import { useEffect, useState } from "react";
import { requireAdmin } from "../pages/context.server";
import { productsPage } from "../connections/products-page.server";
import { productsAction } from "../connections/products-actions.server";
import { BulkCard } from "../connections/ui/BulkCard";
import { PICKER_PARAMS, PickerCard } from "../connections/ui/PickerCard";
import { ProductsFilters } from "../connections/ui/ProductsFilters";
import { SyncCard } from "../connections/ui/SyncCard";
import { VariantsTable } from "../connections/ui/VariantsTable";
import { type ActionData, FormStatus } from "../components/FormStatus";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { prisma } from "../db.server";
import { shopTimeZone } from "../orders/shop-zone.server";
import { shopGatewayForRequest } from "../shop/index.server";
import { readForm } from "../page-kit/forms.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, admin, session } = await requireAdmin(request);
  const gateway = shopGatewayForRequest(admin, session);
  const [page, timeZone] = await Promise.all([
    productsPage(prisma, shop, gateway, new URL(request.url).searchParams),
    shopTimeZone(prisma, shop),
  ]);
  return { ...page, timeZone };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return productsAction(prisma, shop, await readForm(request));
};

export default function Products() {
  const data = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionData;
  const busy = useNavigation().state !== "idle";
  const [params, setParams] = useSearchParams();
  const running = data.bulk && (data.bulk.state === "available" || data.bulk.state === "running");
  // The job's progress lives in the database: while it runs, read it again every 1.5 s (not
  // while the merchant types in the picker or a search).
  useAutoRefresh({ every: 1500, enabled: Boolean(running) });
  const pickVariant = data.products
    .flatMap((p) => p.variants.map((v) => ({ ...v, product: p })))
    .find((v) => v.id === data.picker?.variantId);
  // A connection made in the picker closes it; its outcome stays on the page after that.
  const [connectedResult, setConnectedResult] = useState<ActionData>(undefined);
  useEffect(() => {
    if (!result?.ok || (result.intent !== "connect" && result.intent !== "connect-all")) return;
    setConnectedResult(result);
    if (!params.has("pick")) return;
    const next = new URLSearchParams(params);
    for (const k of PICKER_PARAMS) next.delete(k);
    setParams(next, { replace: true, preventScrollReset: true });
    // Only a new result closes it (not a change of the address).
  }, [result]);
  return (
    <Page title="Products" subtitle={`${data.connectedTotal} variants connected to the catalog`}>
      <Layout>
        <Layout.Section>
          <BlockStack gap="400">
            <FormStatus data={result ?? connectedResult} />
            {!data.connected ? (
              <Banner tone="warning">
                Connect a service account in <Link to="/app/settings">Settings</Link> before
                connecting products.
              </Banner>
            ) : null}
            <BulkCard bulk={data.bulk} busy={busy} disabled={!data.connected} />
            <SyncCard
              changes={data.changes}
              busy={busy}
              disabled={!data.connected}
              timeZone={data.timeZone}
            />
            {data.picker ? <PickerCard picker={data.picker} variant={pickVariant} /> : null}
            <ProductsFilters data={data} busy={busy} />
            <Text as="p" tone="subdued" variant="bodySm" data-stock-note>
              {`Stock counts the supplier's warehouses in ${data.stockCountries.join(", ")} only (the figures by warehouse beside a supplier's variant include the others), as set in `}
              <Link to="/app/settings#pricing">Settings → Warehouse countries that count</Link>.
            </Text>
            <VariantsTable data={data} busy={busy} />
            {data.nextCursor ? (
              <InlineStack align="center">
                <Button
                  onClick={() => {
                    const next = new URLSearchParams(params);
                    next.set("after", data.nextCursor!);
                    setParams(next);
                  }}
                >
                  Next page
                </Button>
              </InlineStack>
            ) : null}
          </BlockStack>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
