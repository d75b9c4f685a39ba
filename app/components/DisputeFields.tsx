import { Form, useNavigation } from "@remix-run/react";
import { BlockStack, Button, InlineError, Text, TextField } from "@shopify/polaris";
import { useEffect, useId, useState } from "react";
import { fieldError, type ActionData } from "./FormStatus";

/**
 * A dispute form's attachments: photos or videos from the merchant's device (the app keeps them
 * and the service copies them), or addresses of files already online, one a line.
 */
export function AttachmentFields({ result, intent }: { result: ActionData; intent: string }) {
  const id = useId();
  const [addresses, setAddresses] = useState("");
  // A new file input after a success (a browser keeps the files chosen in the old one).
  const [picker, setPicker] = useState(0);
  useEffect(() => {
    if (result?.ok && result.intent === intent) {
      setAddresses("");
      setPicker((n) => n + 1);
    }
  }, [result, intent]);
  const fileError = fieldError(result, intent, "files");
  return (
    <BlockStack gap="200">
      <BlockStack gap="100">
        <label htmlFor={`${id}-files`}>
          <Text as="span">Photos or videos</Text>
        </label>
        <input
          key={picker}
          id={`${id}-files`}
          type="file"
          name="files"
          multiple
          accept="image/jpeg,image/png,image/webp,image/gif,video/mp4,video/quicktime,video/webm"
          aria-describedby={`${id}-files-help`}
          aria-invalid={fileError ? true : undefined}
          style={{ maxWidth: "100%" }}
        />
        <Text as="span" tone="subdued" variant="bodySm" id={`${id}-files-help`}>
          Up to 6 files: jpg, png, webp, gif or mp4, mov, webm, 10 MB each.
        </Text>
        {fileError ? <InlineError message={fileError} fieldID={`${id}-files`} /> : null}
      </BlockStack>
      <TextField
        label="Or addresses of photos or videos already online"
        name="addresses"
        value={addresses}
        onChange={setAddresses}
        multiline={2}
        autoComplete="off"
        placeholder="https://…"
        helpText="One a line. The service copies each file, so a link that expires later is fine."
        error={fieldError(result, intent, "addresses")}
      />
    </BlockStack>
  );
}

/** Reads from the service now instead of waiting for the schedule (a double click asks once). */
export function CheckNow({ label }: { label: string }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "check";
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="check" />
      <Button submit loading={busy} disabled={navigation.state === "submitting"}>
        {label}
      </Button>
    </Form>
  );
}

/** A message to the service (500 characters at most, counted as typed). */
export function MessageField({
  label,
  value,
  onChange,
  helpText,
  error,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  helpText: string;
  error?: string;
}) {
  return (
    <TextField
      label={label}
      name="text"
      value={value}
      onChange={onChange}
      multiline={4}
      maxLength={500}
      showCharacterCount
      autoComplete="off"
      helpText={helpText}
      error={error}
    />
  );
}
