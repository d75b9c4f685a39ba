/**
 * The frame every saved form of the settings page shares (its field helpers are
 * ./part-fields.ts): a card marked as being edited while
 * its draft differs from what is saved (self-refreshing leaves it alone), a form the page's save
 * bar reads by its intent (Enter in a field saves through the bar, never alone), the form's
 * refusal at its top, and, below the form, whatever else the card holds.
 */
import { Form } from "@remix-run/react";
import { BlockStack, Card, FormLayout } from "@shopify/polaris";
import type { ReactNode } from "react";
import { type ActionData, FormStatus } from "./FormStatus";
import { editingProps } from "./useAutoRefresh";

export function PartForm(p: {
  intent: string;
  dirty: boolean;
  refusal: ActionData;
  onSave: () => void;
  /** Hidden inputs: values the visible controls keep outside the form's own fields. */
  hidden?: ReactNode;
  /** Below the form, inside the card (another form of its own, a note). */
  after?: ReactNode;
  children: ReactNode;
}) {
  const form = (
    <Form
      method="post"
      data-settings-part={p.intent}
      onSubmit={(e) => {
        e.preventDefault();
        p.onSave();
      }}
    >
      <input type="hidden" name="intent" value={p.intent} />
      {p.hidden}
      <FormLayout>
        <FormStatus data={p.refusal} intent={p.intent} summary />
        {p.children}
      </FormLayout>
    </Form>
  );
  return (
    <div data-settings-card={p.intent} {...editingProps(p.dirty)}>
      <Card>
        {p.after ? (
          <BlockStack gap="400">
            {form}
            {p.after}
          </BlockStack>
        ) : (
          form
        )}
      </Card>
    </div>
  );
}
