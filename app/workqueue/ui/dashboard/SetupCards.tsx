/**
 * What stops the dashboard's shop from running by itself: Shopify's access lost, no shipping
 * rule, no service account yet (the welcome card).
 */
import { Banner, BlockStack, Button, Card, InlineStack, Text } from "@shopify/polaris";

/** Shopify no longer accepts the app's access: why, for the merchant. */
export function AuthProblemBanner({ problem }: { problem: string }) {
  return (
    <Banner tone="critical" title="Orders are waiting">
      <Text as="p">{problem}</Text>
    </Banner>
  );
}

/** No shipping rule yet: orders wait. */
export function ShippingUnsetBanner() {
  return (
    <Banner
      tone="warning"
      title="Shipping is not set up"
      action={{ content: "Set up shipping", url: "/app/settings" }}
    >
      <Text as="p">
        Orders wait until a shipping rule says how their method is chosen. One rule for every
        destination is enough to start.
      </Text>
    </Banner>
  );
}

/** A shop with no service account yet: what to do first. */
export function WelcomeCard() {
  return (
    <Card>
      <BlockStack gap="200">
        <Text as="h2" variant="headingMd">
          Welcome to Dropship Autopilot
        </Text>
        <Text as="p">
          Connect your fulfilment service account, then connect your products to the catalog: from
          then on every paid order is placed, paid and tracked for you.
        </Text>
        <InlineStack gap="200">
          <Button url="/app/settings" variant="primary">
            Connect an account
          </Button>
          <Button url="/app/products">Connect products</Button>
        </InlineStack>
      </BlockStack>
    </Card>
  );
}
