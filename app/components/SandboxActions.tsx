import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, InlineStack, Text } from "@shopify/polaris";

type Result = { ok: false; error: string } | undefined;

/** The sandbox's demo buttons; they post to /app/sandbox (which exists only in the sandbox). */
export function PlaceOrderButton() {
  const fetcher = useFetcher<Result>();
  return (
    <fetcher.Form method="post" action="/app/sandbox">
      <input type="hidden" name="intent" value="place-order" />
      <BlockStack gap="200">
        {fetcher.data && !fetcher.data.ok ? (
          <Banner tone="critical">{fetcher.data.error}</Banner>
        ) : null}
        <Button submit loading={fetcher.state !== "idle"}>
          Place a test customer order
        </Button>
      </BlockStack>
    </fetcher.Form>
  );
}

export function ShipButton({ orderId }: { orderId: string }) {
  const fetcher = useFetcher<Result>();
  return (
    <fetcher.Form method="post" action="/app/sandbox">
      <input type="hidden" name="intent" value="ship" />
      <input type="hidden" name="orderId" value={orderId} />
      <BlockStack gap="200">
        {fetcher.data && !fetcher.data.ok ? (
          <Banner tone="critical">{fetcher.data.error}</Banner>
        ) : null}
        <Button submit loading={fetcher.state !== "idle"}>
          Ship it
        </Button>
      </BlockStack>
    </fetcher.Form>
  );
}

export function SandboxCard({ children }: { children: React.ReactNode }) {
  return (
    <Card background="bg-surface-caution">
      <BlockStack gap="200">
        <Text as="h2" variant="headingSm">
          Sandbox
        </Text>
        <InlineStack gap="300" blockAlign="center">
          {children}
        </InlineStack>
      </BlockStack>
    </Card>
  );
}
