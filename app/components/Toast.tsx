/**
 * A success toast: Shopify's own (App Bridge `shopify.toast`) inside the admin, and the same
 * look outside it (the sandbox), as a polite live region at the bottom of the screen that goes
 * after a few seconds. Errors are not toasts: they stay on the page, by their field.
 */
import { Button, InlineStack, Text } from "@shopify/polaris";
import { useEffect, useState } from "react";

type AppBridge = { toast?: { show(message: string, opts?: { duration?: number }): void } };

const DURATION_MS = 5000;

/** Shows `message` once for each new `token` (the result object of a post). */
export function Toast({ message, token }: { message: string; token: unknown }) {
  const [shown, setShown] = useState<string | null>(null);
  useEffect(() => {
    const bridge = (globalThis as { shopify?: AppBridge }).shopify;
    if (bridge?.toast) {
      bridge.toast.show(message, { duration: DURATION_MS });
      return;
    }
    setShown(message);
    const t = setTimeout(() => setShown(null), DURATION_MS);
    return () => clearTimeout(t);
  }, [message, token]);
  return (
    <div
      role="status"
      aria-live="polite"
      style={{
        position: "fixed",
        insetInline: 0,
        bottom: 24,
        display: "flex",
        justifyContent: "center",
        pointerEvents: "none",
        zIndex: 520,
      }}
    >
      {shown ? (
        <div
          data-toast
          style={{
            pointerEvents: "auto",
            background: "var(--p-color-bg-inverse, #303030)",
            borderRadius: 8,
            padding: "10px 8px 10px 16px",
            maxWidth: "min(560px, calc(100vw - 32px))",
            boxShadow: "0 4px 12px rgba(0,0,0,.25)",
          }}
        >
          <InlineStack gap="200" blockAlign="center" wrap={false}>
            <Text as="span" tone="text-inverse">
              {shown}
            </Text>
            <Button
              variant="monochromePlain"
              onClick={() => setShown(null)}
              accessibilityLabel="Dismiss"
            >
              ×
            </Button>
          </InlineStack>
        </div>
      ) : null}
    </div>
  );
}
