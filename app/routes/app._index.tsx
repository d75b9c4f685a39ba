import type { LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { BlockStack, Card, Layout, Page, Text } from "@shopify/polaris";
import { requireAdmin } from "../admin/context.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  return { shop };
};

export default function Dashboard() {
  const { shop } = useLoaderData<typeof loader>();
  return (
    <Page title="Dashboard">
      <Layout>
        <Layout.Section>
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                Welcome, {shop}
              </Text>
              <Text as="p">
                Connect your fulfilment service account in Settings to start placing orders
                automatically. Order counts, balance and problems will show here.
              </Text>
            </BlockStack>
          </Card>
        </Layout.Section>
      </Layout>
    </Page>
  );
}
