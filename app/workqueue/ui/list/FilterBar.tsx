/** The orders list's search, dates and sort. */
import { Form } from "@remix-run/react";
import { Button, InlineStack, Select, TextField } from "@shopify/polaris";
import { useEffect, useState } from "react";
import type { Filter } from "./types";

const SORTS = [
  { label: "Newest first", value: "newest" },
  { label: "Oldest first", value: "oldest" },
  { label: "Recently updated", value: "updated" },
];

/** Search, dates and sort: a GET form (Enter searches), its fields kept as typed. */
export function FilterBar({
  filter,
  clearUrl,
  rangeError,
}: {
  filter: Filter;
  clearUrl: string;
  rangeError: string | null;
}) {
  const [q, setQ] = useState(filter.q);
  const [from, setFrom] = useState(filter.from);
  const [to, setTo] = useState(filter.to);
  const [sort, setSort] = useState<string>(filter.sort);
  useEffect(() => {
    setQ(filter.q);
    setFrom(filter.from);
    setTo(filter.to);
    setSort(filter.sort);
  }, [filter.q, filter.from, filter.to, filter.sort]);
  const filtered = filter.q || filter.from || filter.to;
  const clear = new URLSearchParams(clearUrl.slice(1));
  for (const k of ["q", "from", "to"]) clear.delete(k);
  return (
    <Form method="get" role="search" aria-label="Search and filter orders">
      {filter.view !== "all" ? <input type="hidden" name="view" value={filter.view} /> : null}
      <InlineStack gap="200" blockAlign="end" wrap>
        <div style={{ flex: "1 1 260px" }}>
          <TextField
            label="Search"
            name="q"
            autoComplete="off"
            value={q}
            onChange={setQ}
            placeholder="Order number, customer, email, service order, tracking number"
          />
        </div>
        <TextField
          label="From"
          type="date"
          name="from"
          autoComplete="off"
          value={from}
          onChange={setFrom}
        />
        <TextField
          label="To"
          type="date"
          name="to"
          autoComplete="off"
          value={to}
          onChange={setTo}
          error={rangeError && to === filter.to && from === filter.from ? rangeError : undefined}
        />
        <Select label="Sort" name="sort" options={SORTS} value={sort} onChange={setSort} />
        <Button submit>Apply</Button>
        {filtered ? <Button url={`?${clear.toString()}`}>Clear</Button> : null}
      </InlineStack>
    </Form>
  );
}
