/** The orders list's selection bar: how many are selected and the bulk actions that fit them. */
import { Box, Button, InlineStack, Text } from "@shopify/polaris";
import { BULK_INTENTS, BULK_LABELS, type BulkIntent, fits } from "../../order-fit";
import type { Row } from "./types";

/** A button per bulk action that fits at least one selected order, with how many it fits. */
export function BulkBar({
  selected,
  disabled,
  onChoose,
  onClear,
}: {
  selected: Row[];
  disabled: boolean;
  onChoose: (intent: BulkIntent) => void;
  onClear: () => void;
}) {
  return (
    <Box paddingInline="300" paddingBlockEnd="300">
      <InlineStack gap="200" blockAlign="center" wrap>
        <Text as="span" fontWeight="semibold">{`${selected.length} selected`}</Text>
        {BULK_INTENTS.map((intent) => {
          const n = selected.filter((o) => fits(intent, o)).length;
          return n > 0 ? (
            <Button
              key={intent}
              tone={intent === "cancel" ? "critical" : undefined}
              disabled={disabled}
              onClick={() => onChoose(intent)}
            >
              {`${BULK_LABELS[intent]} (${n})`}
            </Button>
          ) : null;
        })}
        <Button variant="plain" onClick={onClear}>
          Clear selection
        </Button>
      </InlineStack>
    </Box>
  );
}
