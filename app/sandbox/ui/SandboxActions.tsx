import { useFetcher } from "@remix-run/react";
import { Banner, BlockStack, Button, Card, InlineStack, Text } from "@shopify/polaris";
import { useSubmitOnce } from "../../components/SubmitOnce";

type Result = { ok: false; error: string } | undefined;

/** The sandbox's demo buttons; they post to /app/sandbox (which exists only in the sandbox). */
export function PlaceOrderButton() {
  const fetcher = useFetcher<Result>();
  // A double click places one order: the second submit is dropped here, and one that gets
  // through carries the same key, which the server answers with the first one's order.
  const once = useSubmitOnce(fetcher.state !== "idle");
  return (
    <fetcher.Form method="post" action="/app/sandbox" onSubmit={once.onSubmit}>
      <input type="hidden" name="intent" value="place-order" />
      <input type="hidden" name="key" value={once.key} />
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
  const once = useSubmitOnce(fetcher.state !== "idle");
  return (
    <fetcher.Form method="post" action="/app/sandbox" onSubmit={once.onSubmit}>
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
