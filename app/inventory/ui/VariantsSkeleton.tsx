/** Shown at once while a product being opened has its variants read from the service. */
import { BlockStack, Box, Card, SkeletonBodyText, Text } from "@shopify/polaris";

export function VariantsSkeleton() {
  return (
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
  );
}
