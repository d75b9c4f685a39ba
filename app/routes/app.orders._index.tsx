import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useNavigation,
  useSearchParams,
} from "@remix-run/react";
import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  IndexTable,
  InlineStack,
  Page,
  ProgressBar,
  Select,
  Text,
  TextField,
  useBreakpoints,
  useIndexResourceState,
} from "@shopify/polaris";
import { useEffect, useMemo, useRef, useState } from "react";
import { latestBulkRun, startBulkRun } from "../workqueue/bulk-orders.server";
import { requireAdmin } from "../pages/context.server";
import { BULK_INTENTS, BULK_LABELS, type BulkIntent, fits } from "../workqueue/order-fit";
import { scheduledText, shopDateTime } from "../orders/shop-time";
import { isScheduled } from "../orders/states";
import { flagWords, plainMessage } from "../orders/plain-words";
import { listOrders, type OrderView } from "../workqueue/orders.server";
import { FormStatus, type ActionData } from "../components/FormStatus";
import { useAutoRefresh } from "../components/useAutoRefresh";
import { PlaceOrderButton, SandboxCard } from "../sandbox/ui/SandboxActions";
import { StateBadge } from "../components/StateBadge";
import { useSubmitOnce } from "../components/SubmitOnce";
import { ListFooter } from "../components/ListFooter";
import { ViewTabs } from "../components/ViewTabs";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const search = new URL(request.url).searchParams;
  const [list, bulk] = await Promise.all([
    listOrders(prisma, shop, search),
    latestBulkRun(prisma, shop),
  ]);
  return { ...list, bulk, sandbox };
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop } = await requireAdmin(request);
  const r = await startBulkRun(prisma, shop, await request.formData());
  return r.ok
    ? { ok: true as const, intent: "bulk", message: r.message }
    : { ok: false as const, intent: "bulk", errors: r.errors };
};

/** The work queue's tabs: what the merchant has to do, in the order of the pipeline. */
const VIEWS: Array<{ id: OrderView; label: string }> = [
  { id: "all", label: "All" },
  { id: "attention", label: "Needs attention" },
  { id: "to_place", label: "To place" },
  { id: "awaiting_payment", label: "Awaiting payment" },
  { id: "awaiting_shipment", label: "Awaiting shipment" },
  { id: "shipped", label: "Shipped" },
  { id: "completed", label: "Completed" },
  { id: "cancelled", label: "Cancelled" },
];

const SORTS = [
  { label: "Newest first", value: "newest" },
  { label: "Oldest first", value: "oldest" },
  { label: "Recently updated", value: "updated" },
];

function money(value: string | null, currency: string | null): string {
  return value ? `${value} ${currency ?? ""}`.trim() : "—";
}

type Row = ReturnType<typeof useLoaderData<typeof loader>>["orders"][number];

export default function Orders() {
  const data = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const { smDown } = useBreakpoints();
  const running = Boolean(data.bulk && !data.bulk.finished);
  // Orders move on their own (webhooks, jobs): refresh every few seconds, faster while a bulk
  // run works, never while the merchant types a search or confirms. A refresh keeps the
  // selection (it is kept by order id).
  useAutoRefresh({ every: running ? 1500 : 4000 });

  const placed = params.get("placed");
  const result = useActionData<typeof action>() as ActionData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const { selectedResources, allResourcesSelected, handleSelectionChange, clearSelection } =
    useIndexResourceState(data.orders);
  const selected = data.orders.filter((o) => selectedResources.includes(o.id));
  const [confirming, setConfirming] = useState<BulkIntent | null>(null);
  const once = useSubmitOnce(navigation.state === "submitting");
  useEffect(() => {
    if (result?.ok) {
      setConfirming(null);
      clearSelection();
      once.renew();
    }
    // A new outcome only (clearSelection and renew are stable).
  }, [result, clearSelection, once.renew]);

  const view = (id: OrderView) => {
    const next = new URLSearchParams(params);
    next.delete("problems");
    next.delete("state");
    next.delete("page");
    next.delete("placed");
    if (id === "all") next.delete("view");
    else next.set("view", id);
    return `?${next.toString()}`;
  };

  return (
    <Page title="Orders" fullWidth>
      <BlockStack gap="400">
        {placed ? (
          <Banner tone="success">
            Test order {placed} placed in the shop; its webhooks were sent to the app.
          </Banner>
        ) : null}
        {data.sandbox ? (
          <SandboxCard>
            <PlaceOrderButton />
            <Text as="span" tone="subdued">
              The shop simulator creates an order and sends orders/create and orders/paid.
            </Text>
          </SandboxCard>
        ) : null}
        <FormStatus data={result} />
        {data.bulk ? <BulkRunCard run={data.bulk} /> : null}
        {confirming ? (
          <BulkConfirm
            intent={confirming}
            selected={selected}
            clientKey={once.key}
            onSubmit={once.onSubmit}
            busy={busy}
            onClose={() => setConfirming(null)}
          />
        ) : null}
        <Card padding="0">
          <ArrowKeys>
            <ViewTabs
              label="Order views"
              views={VIEWS}
              current={data.filter.view}
              counts={data.viewCounts}
              href={view}
            />
          </ArrowKeys>
          <Box padding="300">
            <FilterBar
              filter={data.filter}
              clearUrl={view(data.filter.view)}
              rangeError={data.rangeError}
            />
          </Box>
          {selected.length > 0 ? (
            <Box paddingInline="300" paddingBlockEnd="300">
              <InlineStack gap="200" blockAlign="center" wrap>
                <Text as="span" fontWeight="semibold">{`${selected.length} selected`}</Text>
                {BULK_INTENTS.map((intent) => {
                  const n = selected.filter((o) => fits(intent, o)).length;
                  return n > 0 ? (
                    <Button
                      key={intent}
                      tone={intent === "cancel" ? "critical" : undefined}
                      disabled={busy || running}
                      onClick={() => setConfirming(intent)}
                    >
                      {`${BULK_LABELS[intent]} (${n})`}
                    </Button>
                  ) : null;
                })}
                <Button variant="plain" onClick={clearSelection}>
                  Clear selection
                </Button>
              </InlineStack>
            </Box>
          ) : null}
          {data.orders.length === 0 ? (
            <Box padding="600">
              <BlockStack gap="200" inlineAlign="center">
                <Text as="h2" variant="headingMd">
                  {data.filter.q || data.filter.from || data.filter.to
                    ? "No orders match"
                    : "No orders here"}
                </Text>
                <Text as="p" tone="subdued">
                  {data.rangeError
                    ? data.rangeError
                    : data.filter.q || data.filter.from || data.filter.to
                      ? "Try another search or date range."
                      : "Orders appear as soon as the shop sends them."}
                </Text>
              </BlockStack>
            </Box>
          ) : (
            <IndexTable
              resourceName={{ singular: "order", plural: "orders" }}
              itemCount={data.orders.length}
              selectedItemsCount={allResourcesSelected ? "All" : selectedResources.length}
              onSelectionChange={handleSelectionChange}
              condensed={smDown}
              headings={[
                { title: "Order" },
                { title: "Customer" },
                { title: "State" },
                { title: "Why" },
                { title: "Shop total", alignment: "end" },
                { title: "Service cost", alignment: "end" },
                { title: "Shipping" },
                { title: "Margin", alignment: "end" },
                { title: "Tracking" },
              ]}
            >
              {data.orders.map((o, i) => (
                <IndexTable.Row
                  id={o.id}
                  key={o.id}
                  position={i}
                  selected={selectedResources.includes(o.id)}
                >
                  {smDown ? (
                    <CondensedRow o={o} timeZone={data.timeZone} />
                  ) : (
                    <WideRow o={o} timeZone={data.timeZone} />
                  )}
                </IndexTable.Row>
              ))}
            </IndexTable>
          )}
        </Card>
        <ListFooter total={data.total} noun="order" page={data.filter.page} pages={data.pages} />
      </BlockStack>
    </Page>
  );
}

/**
 * The views' tabs with roving focus: Tab enters at the current view, the arrow keys (and Home,
 * End) move between views, Enter opens one, as a tab list works for a keyboard.
 */
function ArrowKeys({ children }: { children: React.ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const links = () => [...(ref.current?.querySelectorAll<HTMLAnchorElement>("a[data-view]") ?? [])];
  useEffect(() => {
    const all = links();
    const current = all.find((a) => a.getAttribute("aria-current") === "page") ?? all[0];
    for (const a of all) a.tabIndex = a === current ? 0 : -1;
  });
  const onKeyDown = (e: React.KeyboardEvent) => {
    const all = links();
    const at = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    const next =
      e.key === "ArrowRight"
        ? (at + 1) % all.length
        : e.key === "ArrowLeft"
          ? (at - 1 + all.length) % all.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? all.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    for (const a of all) a.tabIndex = -1;
    all[next]!.tabIndex = 0;
    all[next]!.focus();
  };
  return (
    // The keys reach the links inside; the wrapper itself is not focusable.
    <div ref={ref} onKeyDown={onKeyDown} data-arrow-tabs>
      {children}
    </div>
  );
}

type Filter = ReturnType<typeof useLoaderData<typeof loader>>["filter"];

/** Search, dates and sort: a GET form (Enter searches), its fields kept as typed. */
function FilterBar({
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

function OrderLink({ o }: { o: Row }) {
  return (
    <Link to={`/app/orders/${o.id}`} data-order-link={o.name}>
      <Text as="span" fontWeight="semibold">
        {o.name}
      </Text>
    </Link>
  );
}

function why(o: Row, timeZone: string | null): string {
  if (isScheduled(o)) return scheduledText(o.placeAfter, timeZone, o.createdAt);
  return plainMessage(o.reasonMessage, timeZone) || flagWords(o.flag) || "";
}

function Badges({ o }: { o: Row }) {
  return (
    <InlineStack gap="100" wrap={false}>
      <StateBadge state={o.state} reasonCode={o.reasonCode} />
      {o.flag ? <StateBadge state="FAILED" /> : null}
    </InlineStack>
  );
}

function WideRow({ o, timeZone }: { o: Row; timeZone: string | null }) {
  const reason = why(o, timeZone);
  return (
    <>
      <IndexTable.Cell>
        <BlockStack gap="050">
          <OrderLink o={o} />
          <Text as="span" variant="bodySm" tone="subdued">
            {shopDateTime(o.createdAt, timeZone)}
          </Text>
        </BlockStack>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <BlockStack gap="050">
          <Text as="span">{o.customerName ?? "—"}</Text>
          {o.customerEmail ? (
            <Text as="span" variant="bodySm" tone="subdued">
              {o.customerEmail}
            </Text>
          ) : null}
        </BlockStack>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Badges o={o} />
      </IndexTable.Cell>
      <IndexTable.Cell>
        {/* The whole reason, wrapped: a cause cut in the middle misleads. */}
        <div data-why style={{ maxWidth: 360, minWidth: 200, whiteSpace: "normal" }}>
          <Text as="span" tone={o.state === "FAILED" || o.flag ? "critical" : undefined}>
            {reason}
          </Text>
        </div>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {money(o.shopTotal, o.currency)}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>
        <Text as="span" alignment="end" numeric>
          {money(o.amount, "USD")}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>{o.logisticName ?? "—"}</IndexTable.Cell>
      <IndexTable.Cell>
        <Text
          as="span"
          alignment="end"
          numeric
          tone={o.margin && o.margin.startsWith("-") ? "critical" : undefined}
        >
          {money(o.margin, "USD")}
        </Text>
      </IndexTable.Cell>
      <IndexTable.Cell>{o.trackNumber ?? "—"}</IndexTable.Cell>
    </>
  );
}

/** A phone's row: the order, its state and what matters most, stacked. */
function CondensedRow({ o, timeZone }: { o: Row; timeZone: string | null }) {
  const reason = why(o, timeZone);
  return (
    <div style={{ padding: "12px 16px", width: "100%" }}>
      <BlockStack gap="100">
        <InlineStack align="space-between" blockAlign="center" gap="200">
          <OrderLink o={o} />
          <Badges o={o} />
        </InlineStack>
        <Text as="span" variant="bodySm" tone="subdued">
          {`${o.customerName ?? "—"} · ${shopDateTime(o.createdAt, timeZone)}`}
        </Text>
        <Text as="span" variant="bodySm">
          {`Total ${money(o.shopTotal, o.currency)} · Cost ${money(o.amount, "USD")}${o.margin ? ` · Margin ${o.margin} USD` : ""}`}
        </Text>
        {o.trackNumber ? (
          <Text as="span" variant="bodySm">{`Tracking ${o.trackNumber}`}</Text>
        ) : null}
        {reason ? (
          <Text
            as="span"
            variant="bodySm"
            tone={o.state === "FAILED" || o.flag ? "critical" : undefined}
          >
            {reason}
          </Text>
        ) : null}
      </BlockStack>
    </div>
  );
}

/** What a bulk action will do to the selection, before it runs. */
function BulkConfirm({
  intent,
  selected,
  clientKey,
  onSubmit,
  busy,
  onClose,
}: {
  intent: BulkIntent;
  selected: Row[];
  clientKey: string;
  onSubmit: (e: React.FormEvent) => void;
  busy: boolean;
  onClose: () => void;
}) {
  const fitting = useMemo(() => selected.filter((o) => fits(intent, o)), [intent, selected]);
  const left = selected.length - fitting.length;
  const label = BULK_LABELS[intent];
  const cost = fitting.reduce((a, o) => a + Math.round(Number(o.amount ?? 0) * 100), 0);
  const n = fitting.length;
  const orders = `${n} order${n === 1 ? "" : "s"}`;
  return (
    <Banner
      tone={intent === "cancel" ? "critical" : "warning"}
      title={`${label} ${orders}?`}
      onDismiss={onClose}
    >
      <BlockStack gap="200">
        <Text as="p">
          {intent === "pay-now"
            ? `${(cost / 100).toFixed(2)} USD from the service balance.`
            : intent === "cancel"
              ? "They leave the pipeline and are not sent to the service. This cannot be undone."
              : intent === "hold"
                ? "They stop where they are until you release them."
                : intent === "release"
                  ? "They go on at once (the review window and risk holds are skipped)."
                  : "Each goes on from where it stopped; the results appear per order."}
          {left > 0
            ? ` ${left} selected order${left === 1 ? " does" : "s do"} not fit and ${left === 1 ? "is" : "are"} left out.`
            : ""}
        </Text>
        <Form method="post" onSubmit={onSubmit}>
          <input type="hidden" name="intent" value={intent} />
          <input type="hidden" name="clientKey" value={clientKey} />
          {fitting.map((o) => (
            <input key={o.id} type="hidden" name="orderId" value={o.id} />
          ))}
          <InlineStack gap="200">
            <Button
              submit
              variant="primary"
              tone={intent === "cancel" ? "critical" : undefined}
              disabled={busy || n === 0}
            >
              {`${label} ${orders}`}
            </Button>
            <Button onClick={onClose}>Back</Button>
          </InlineStack>
        </Form>
      </BlockStack>
    </Banner>
  );
}

function BulkRunCard({
  run,
}: {
  run: NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["bulk"]>;
}) {
  const [open, setOpen] = useState(true);
  const pct = run.total ? Math.round((run.done / run.total) * 100) : 100;
  // Refused orders first: they are what the merchant has to look at.
  const results = [...run.results].sort((a, b) => Number(a.ok) - Number(b.ok));
  return (
    <Card>
      <BlockStack gap="200">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="h2" variant="headingSm">
            {run.finished
              ? `${run.label}: ${run.done - run.failed} done, ${run.failed} refused`
              : `${run.label}: ${run.done} of ${run.total} done…`}
          </Text>
          <Button variant="plain" onClick={() => setOpen(!open)}>
            {open ? "Hide results" : "Show results"}
          </Button>
        </InlineStack>
        <ProgressBar progress={pct} size="small" ariaLabelledBy={undefined} />
        {open && results.length > 0 ? (
          <div style={{ maxHeight: 240, overflowY: "auto" }}>
            <ul aria-label="Results per order" style={{ margin: 0, paddingLeft: 18 }}>
              {results.map((r) => (
                <li key={r.orderId} data-bulk-result={r.name}>
                  <Text as="span" tone={r.ok ? undefined : "critical"}>
                    <Link to={`/app/orders/${r.orderId}`}>{r.name}</Link>
                    {`: ${r.message}`}
                  </Text>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </BlockStack>
    </Card>
  );
}
