/** The sandbox's navigation bar, outside Shopify's admin (the pages it links: components/nav-links.ts). */
import { NavLink } from "@remix-run/react";
import { Badge, Box, InlineStack, Text } from "@shopify/polaris";
import { NAV_LINKS, navLabel } from "../../components/nav-links";

/** The sandbox's own page: the notification emails its mail catcher caught. */
const SANDBOX_MAIL_LINK = { to: "/app/sandbox-mail", label: "Mail" } as const;

/** The sandbox's navigation bar (inside Shopify's admin, App Bridge's NavMenu does this). */
export function SandboxNav({ shop, counts }: { shop: string; counts: { disputes: number } }) {
  return (
    <header>
      <Box background="bg-surface" padding="300" borderBlockEndWidth="025" borderColor="border">
        <InlineStack align="space-between" blockAlign="center" gap="300">
          <InlineStack gap="300" blockAlign="center">
            <Text as="span" variant="headingMd">
              Dropship Autopilot
            </Text>
            <Badge tone="attention">Sandbox</Badge>
          </InlineStack>
          <nav aria-label="App">
            {/* Wraps on a phone instead of running off the screen. */}
            <InlineStack gap="100" wrap>
              {[...NAV_LINKS, SANDBOX_MAIL_LINK].map((l) => (
                <NavLink
                  key={l.to}
                  to={l.to}
                  end={l.to === "/app"}
                  // NavLink marks the current page with aria-current="page" (and so the style).
                  style={({ isActive }) => ({
                    display: "inline-block",
                    padding: "4px 10px",
                    borderRadius: "var(--p-border-radius-200, 8px)",
                    fontSize: "var(--p-font-size-325, 13px)",
                    fontWeight: isActive ? 650 : 550,
                    textDecoration: "none",
                    color: isActive ? "var(--p-color-text-inverse)" : "var(--p-color-text)",
                    background: isActive
                      ? "var(--p-color-bg-fill-inverse)"
                      : "var(--p-color-bg-fill-tertiary)",
                  })}
                >
                  {l.to === SANDBOX_MAIL_LINK.to ? l.label : navLabel(l, counts)}
                </NavLink>
              ))}
            </InlineStack>
          </nav>
          <Text as="span" tone="subdued">
            {shop}
          </Text>
        </InlineStack>
      </Box>
    </header>
  );
}
