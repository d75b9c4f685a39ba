import { DataTable, type DataTableProps } from "@shopify/polaris";
import { useEffect, useRef } from "react";

/**
 * Polaris's DataTable, whose horizontal scroll area (on a phone the columns overflow) can be
 * reached and scrolled with the keyboard: the scroll container gets a tab stop and a name, as
 * WCAG asks of a scrollable region (axe-core: scrollable-region-focusable).
 */
export function KeyboardDataTable({ label, ...props }: DataTableProps & { label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const scroller = ref.current?.querySelector<HTMLElement>(".Polaris-DataTable__ScrollContainer");
    if (!scroller) return;
    scroller.tabIndex = 0;
    scroller.setAttribute("role", "region");
    scroller.setAttribute("aria-label", label);
  });
  return (
    <div ref={ref}>
      <DataTable {...props} />
    </div>
  );
}
