/**
 * The fields the dispute forms share (open a dispute, reply to one): the message, the
 * attachments (files from the device or addresses online), and the "check now" button.
 */
import { Form, useNavigation } from "@remix-run/react";
import {
  BlockStack,
  Button,
  DropZone,
  InlineError,
  InlineStack,
  Text,
  TextField,
  Thumbnail,
} from "@shopify/polaris";
import { NoteIcon, PlayIcon } from "@shopify/polaris-icons";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { fieldError, type ActionData } from "../../components/FormStatus";

const ACCEPTED = [
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/gif",
  "video/mp4",
  "video/quicktime",
  "video/webm",
];
const MAX_FILES = 6;
const MAX_BYTES = 10 * 1024 * 1024;

interface Chosen {
  key: string;
  file: File;
  error: string | null;
  preview: string | null;
}

const sizeText = (n: number) =>
  n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(1)} MB`
    : `${Math.max(1, Math.round(n / 1024))} KB`;

/** Each chosen file with what is wrong with it, if anything (the server checks again). */
function checkFiles(files: File[]): Omit<Chosen, "preview">[] {
  let good = 0;
  return files.map((file, i) => {
    let error: string | null = null;
    if (!ACCEPTED.includes(file.type))
      error = "Not a photo (jpg, png, webp, gif) or a video (mp4, mov, webm): it will not be sent.";
    else if (file.size > MAX_BYTES) error = "Larger than 10 MB: it will not be sent.";
    else if (good >= MAX_FILES) error = `At most ${MAX_FILES} files: it will not be sent.`;
    else good++;
    return { key: `${i}-${file.name}-${file.size}-${file.lastModified}`, file, error };
  });
}

/** The files checked again, each photo that can be sent with a preview. */
function withPreviews(files: File[]): Chosen[] {
  return checkFiles(files).map((c) => ({
    ...c,
    preview: !c.error && c.file.type.startsWith("image/") ? URL.createObjectURL(c.file) : null,
  }));
}

/** The chosen files, each with its thumbnail, its size or what is wrong, and "Remove". */
function ChosenFiles({ chosen, remove }: { chosen: Chosen[]; remove: (key: string) => void }) {
  return (
    <ul aria-label="Chosen files" style={{ listStyle: "none", margin: 0, padding: 0 }}>
      {chosen.map((c) => (
        <li key={c.key} data-chosen-file={c.file.name} style={{ marginBottom: 8 }}>
          <InlineStack gap="200" blockAlign="center" wrap={false}>
            <Thumbnail
              source={c.preview ?? (c.file.type.startsWith("video/") ? PlayIcon : NoteIcon)}
              alt={c.preview ? `Preview of ${c.file.name}` : ""}
              size="small"
            />
            <div style={{ flex: 1, minWidth: 0 }}>
              <BlockStack gap="050">
                <Text as="span" breakWord>
                  {c.file.name}
                </Text>
                <Text as="span" variant="bodySm" tone={c.error ? "critical" : "subdued"}>
                  {c.error ?? `${sizeText(c.file.size)} · ready to send`}
                </Text>
              </BlockStack>
            </div>
            <Button
              variant="plain"
              onClick={() => remove(c.key)}
              accessibilityLabel={`Remove ${c.file.name}`}
            >
              Remove
            </Button>
          </InlineStack>
        </li>
      ))}
    </ul>
  );
}

/**
 * A dispute form's attachments: photos or videos from the merchant's device, dropped or chosen
 * (the app keeps them and the service copies them), listed with a thumbnail and what is wrong
 * with any of them; or addresses of files already online, one a line. The files that can be
 * sent travel in the form's own `files` input.
 */
export function AttachmentFields({ result, intent }: { result: ActionData; intent: string }) {
  const id = useId();
  const [addresses, setAddresses] = useState("");
  const [chosen, setChosen] = useState<Chosen[]>([]);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (result?.ok && result.intent === intent) {
      setAddresses("");
      setChosen([]);
    }
  }, [result, intent]);
  // The form sends the files without an error, through a file input the browser submits.
  useEffect(() => {
    if (!input.current || typeof DataTransfer === "undefined") return;
    const dt = new DataTransfer();
    for (const c of chosen) if (!c.error) dt.items.add(c.file);
    input.current.files = dt.files;
  }, [chosen]);
  // Previews live as long as their file is listed.
  useEffect(
    () => () => {
      for (const c of chosen) if (c.preview) URL.revokeObjectURL(c.preview);
    },
    [chosen],
  );
  const onDrop = useCallback((files: File[]) => {
    setChosen((before) => withPreviews([...before.map((c) => c.file), ...files]));
  }, []);
  const remove = (key: string) =>
    setChosen((before) => withPreviews(before.filter((c) => c.key !== key).map((c) => c.file)));
  const fileError = fieldError(result, intent, "files");
  return (
    <BlockStack gap="200">
      <DropZone
        id={`${id}-drop`}
        label="Photos or videos"
        allowMultiple
        onDrop={onDrop}
        error={Boolean(fileError)}
      >
        <DropZone.FileUpload actionTitle="Add files" actionHint="or drop photos and videos here" />
      </DropZone>
      <input
        ref={input}
        type="file"
        name="files"
        multiple
        hidden
        aria-hidden="true"
        tabIndex={-1}
      />
      <Text as="span" tone="subdued" variant="bodySm">
        Up to 6 files: jpg, png, webp, gif or mp4, mov, webm, 10 MB each.
      </Text>
      {fileError ? <InlineError message={fileError} fieldID={`${id}-drop`} /> : null}
      {chosen.length ? <ChosenFiles chosen={chosen} remove={remove} /> : null}
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
