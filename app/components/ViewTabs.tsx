import { Link } from "@remix-run/react";

/**
 * A list's task tabs (as Shopify's admin lists have them): links, so a view is an address the
 * merchant can keep; each with its count; the current one marked for assistive technology.
 */
export function ViewTabs<V extends string>({
  label,
  views,
  current,
  counts,
  href,
}: {
  label: string;
  views: ReadonlyArray<{ id: V; label: string }>;
  current: V;
  /** Each view's count, where it is known. */
  counts?: Partial<Record<V, number>>;
  href: (id: V) => string;
}) {
  return (
    <nav aria-label={label} style={{ overflowX: "auto" }}>
      <ul
        style={{
          display: "flex",
          gap: 4,
          listStyle: "none",
          margin: 0,
          padding: "8px 8px 0",
          whiteSpace: "nowrap",
          borderBottom: "1px solid var(--p-color-border-secondary)",
        }}
      >
        {views.map((v) => {
          const active = current === v.id;
          return (
            <li key={v.id}>
              <Link
                to={href(v.id)}
                aria-current={active ? "page" : undefined}
                data-view={v.id}
                style={{
                  display: "inline-block",
                  padding: "8px 12px",
                  color: "var(--p-color-text)",
                  textDecoration: "none",
                  fontWeight: active ? 650 : 450,
                  borderBottom: active
                    ? "2px solid var(--p-color-border-emphasis)"
                    : "2px solid transparent",
                }}
              >
                {v.label}
                {counts?.[v.id] !== undefined ? <span> ({counts[v.id]})</span> : null}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
