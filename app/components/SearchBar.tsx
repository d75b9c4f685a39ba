import { Form } from "@remix-run/react";
import { Button, InlineStack, TextField } from "@shopify/polaris";
import { useEffect, useState } from "react";

/**
 * A list's search: a GET form (Enter searches; the address keeps it), the field kept as typed,
 * the list's other parameters carried along, and Clear when a search is on.
 */
export function SearchBar({
  label,
  q,
  placeholder,
  keep,
  clearUrl,
}: {
  /** The form's name for assistive technology, e.g. "Search disputes". */
  label: string;
  q: string;
  placeholder: string;
  /** Parameters the search keeps (the current view or tab). */
  keep: Record<string, string | null>;
  clearUrl: string;
}) {
  const [value, setValue] = useState(q);
  useEffect(() => setValue(q), [q]);
  return (
    <Form method="get" role="search" aria-label={label}>
      {Object.entries(keep).map(([k, v]) =>
        v ? <input key={k} type="hidden" name={k} value={v} /> : null,
      )}
      <InlineStack gap="200" blockAlign="end" wrap>
        <div style={{ flex: "1 1 260px" }}>
          <TextField
            label="Search"
            name="q"
            autoComplete="off"
            value={value}
            onChange={setValue}
            placeholder={placeholder}
          />
        </div>
        <Button submit>Search</Button>
        {q ? <Button url={clearUrl}>Clear</Button> : null}
      </InlineStack>
    </Form>
  );
}
