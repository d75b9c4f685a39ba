/**
 * "Not found" inside the app's frame (navigation and all), instead of a bare "404": what was
 * looked for, and the way back. Rendered by the ErrorBoundary of the routes that can miss.
 */
import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { BlockStack, Button, Card, InlineStack, Page, Text } from "@shopify/polaris";

export function NotFound({ what = "page" }: { what?: string }) {
  return (
    <Page title="Not found">
      <Card>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            {`This ${what} does not exist`}
          </Text>
          <Text as="p">
            {`The ${what} may have been removed, or the address is mistyped. Orders of another shop are never shown here.`}
          </Text>
          <InlineStack gap="200">
            <Button url="/app" variant="primary">
              Go to the dashboard
            </Button>
            <Button url="/app/orders">See the orders</Button>
          </InlineStack>
        </BlockStack>
      </Card>
    </Page>
  );
}

/** A route's error boundary: 404 as NotFound, anything else as a plain apology with a retry. */
export function RouteErrorBoundary({ what }: { what?: string }) {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound what={what} />;
  return (
    <Page title="Something went wrong">
      <Card>
        <BlockStack gap="300">
          <Text as="p">
            The page could not be loaded. Nothing was changed; try again in a moment.
          </Text>
          <InlineStack gap="200">
            <Button onClick={() => window.location.reload()}>Try again</Button>
            <Button url="/app">Go to the dashboard</Button>
          </InlineStack>
        </BlockStack>
      </Card>
    </Page>
  );
}
