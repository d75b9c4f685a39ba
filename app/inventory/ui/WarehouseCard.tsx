/** The warehouse the settings name, as the service describes it. */
import { BlockStack, Card, Text } from "@shopify/polaris";
import { Facts } from "../../components/Facts";
import type { Warehouse } from "./types";

export function WarehouseCard({ warehouse }: { warehouse: Warehouse }) {
  return (
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
  );
}
