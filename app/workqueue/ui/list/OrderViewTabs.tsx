/**
 * The orders list's views as tabs (what the merchant has to do, in the order of the pipeline),
 * with roving focus for the keyboard.
 */
import { useEffect, useRef } from "react";
import { ViewTabs } from "../../../components/ViewTabs";
import type { OrderView } from "../../orders.server";
import type { OrdersListData } from "./types";

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

/**
 * A view's address: the current search, dates and sort kept; the state, the page and the
 * "placed" notice dropped.
 */
export function viewHref(params: URLSearchParams, id: OrderView): string {
  const next = new URLSearchParams(params);
  next.delete("problems");
  next.delete("state");
  next.delete("page");
  next.delete("placed");
  if (id === "all") next.delete("view");
  else next.set("view", id);
  return `?${next.toString()}`;
}

/** The tabs of the views, each with its count. */
export function OrderViewTabs({
  current,
  counts,
  href,
}: {
  current: OrderView;
  counts: OrdersListData["viewCounts"];
  href: (id: OrderView) => string;
}) {
  return (
    <ArrowKeys>
      <ViewTabs label="Order views" views={VIEWS} current={current} counts={counts} href={href} />
    </ArrowKeys>
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
