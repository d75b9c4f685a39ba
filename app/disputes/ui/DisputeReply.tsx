/** A dispute page's reply card: the message to support and its files, sent once. */
import { Form, useNavigation } from "@remix-run/react";
import { BlockStack, Button, Card, InlineStack, Text } from "@shopify/polaris";
import { useEffect, useState } from "react";
import { fieldError, type ActionData } from "../../components/FormStatus";
import { useSubmitOnce } from "../../components/SubmitOnce";
import { AttachmentFields, MessageField } from "./DisputeFields";

const REPLY_RULES =
  "Support reads replies while the dispute is being processed (pending processing or review, finance review, on hold, supplier refund review, payment processing) and, as a note only, once it is completed. Emoji are removed by the service. At most 500 characters.";

/** The reply form; a reply sent empties the box, a refused one keeps what was typed. */
export function ReplyCard({ result }: { result: ActionData }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const once = useSubmitOnce(navigation.state === "submitting");
  const [text, setText] = useState("");
  useEffect(() => {
    // Sent: the box empties; refused: what was typed stays.
    if (result?.ok && result.intent === "reply") setText("");
  }, [result]);
  return (
    <Card>
      <Form method="post" encType="multipart/form-data" onSubmit={once.onSubmit} aria-label="Reply">
        <input type="hidden" name="intent" value="reply" />
        <input type="hidden" name="formKey" value={once.key} />
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            Reply
          </Text>
          <MessageField
            label="Your message"
            value={text}
            onChange={setText}
            helpText={REPLY_RULES}
            error={fieldError(result, "reply", "text")}
          />
          <AttachmentFields result={result} intent="reply" />
          <InlineStack>
            <Button submit variant="primary" loading={busy} disabled={busy}>
              Send reply
            </Button>
          </InlineStack>
        </BlockStack>
      </Form>
    </Card>
  );
}
