import type { HeadersFunction, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData, useRouteError } from "@remix-run/react";
import { NavMenu } from "@shopify/app-bridge-react";
import polarisStyles from "@shopify/polaris/build/esm/styles.css";
import { boundary } from "@shopify/shopify-app-remix/server";
import { AppProvider } from "@shopify/shopify-app-remix/react";
import { requireAdmin } from "../pages/context.server";
import { PageOutlet } from "../components/PageOutlet";
import { NAV_LINKS, navLabel } from "../components/nav-links";
import { SandboxNav } from "../sandbox/ui/SandboxNav";
import { prisma } from "../db.server";
import { unreadDisputes } from "../disputes/page.server";
import { config } from "../config.server";

export const links = () => [{ rel: "stylesheet", href: polarisStyles }];

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, sandbox } = await requireAdmin(request);
  const counts = { disputes: await unreadDisputes(prisma, shop) };
  // The API key is public (it is the app's client id); the secret never leaves the server.
  return { apiKey: config.SHOPIFY_API_KEY, sandbox, shop, counts };
};

export default function App() {
  const { apiKey, sandbox, shop, counts } = useLoaderData<typeof loader>();
  if (sandbox) {
    // A plain browser: no App Bridge (it only runs inside Shopify's admin), our own navigation.
    return (
      <AppProvider isEmbeddedApp={false} apiKey={apiKey}>
        <SandboxNav shop={shop} counts={counts} />
        <main>
          <PageOutlet />
        </main>
      </AppProvider>
    );
  }
  return (
    <AppProvider isEmbeddedApp apiKey={apiKey}>
      <NavMenu>
        {NAV_LINKS.map((l) => (
          <Link key={l.to} to={l.to} rel={l.to === "/app" ? "home" : undefined}>
            {navLabel(l, counts)}
          </Link>
        ))}
      </NavMenu>
      <main>
        <PageOutlet />
      </main>
    </AppProvider>
  );
}

// Shopify needs Remix to catch some thrown responses so that their headers are included.
export function ErrorBoundary() {
  return boundary.error(useRouteError());
}

export const headers: HeadersFunction = (headersArgs) => boundary.headers(headersArgs);
