/**
 * The app's pages in its navigation: App Bridge's NavMenu inside Shopify's admin, the sandbox's
 * own bar outside it, and the page outlet's idea of which page is current.
 */
export const NAV_LINKS = [
  { to: "/app", label: "Dashboard" },
  { to: "/app/orders", label: "Orders" },
  { to: "/app/disputes", label: "Disputes" },
  { to: "/app/products", label: "Products" },
  { to: "/app/catalog", label: "Catalog" },
  { to: "/app/inventory", label: "Inventory" },
  { to: "/app/settings", label: "Settings" },
] as const;

/** A link's label with its count, where it has one (disputes with a new message). */
export function navLabel(l: (typeof NAV_LINKS)[number], counts: { disputes: number }): string {
  return l.to === "/app/disputes" && counts.disputes > 0
    ? `${l.label} (${counts.disputes})`
    : l.label;
}
