import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { sandboxEnabled, sandboxShopOf } from "../../sandbox/auth.server";

// Shopify opens the app at its URL with ?shop=…; everything else goes to the login form. In the
// sandbox there is no Shopify to log in to: `/` opens the app when the demo shop is signed in,
// and the sandbox's own sign-in otherwise, never Shopify's login form.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const url = new URL(request.url);
  if (url.searchParams.get("shop")) throw redirect(`/app?${url.searchParams.toString()}`);
  if (sandboxEnabled()) {
    throw redirect((await sandboxShopOf(request)) ? "/app" : "/sandbox/signin");
  }
  throw redirect("/auth/login");
};
