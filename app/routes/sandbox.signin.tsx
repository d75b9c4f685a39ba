import { type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { prisma } from "../db.server";
import { sandboxEnabled, sandboxSignInCookie } from "../sandbox/auth.server";

/**
 * Sandbox only: signs the demo shop (or `?shop=`, which must have an offline session) in with
 * a signed cookie and opens the app. Does not exist (404) unless SANDBOX=1 outside production.
 */
export const loader = async ({ request }: LoaderFunctionArgs) => {
  if (!sandboxEnabled()) throw new Response("Not found", { status: 404 });
  const wanted = new URL(request.url).searchParams.get("shop");
  const session = await prisma.session.findFirst({
    where: { isOnline: false, ...(wanted ? { shop: wanted } : {}) },
    orderBy: { shop: "asc" },
    select: { shop: true },
  });
  if (!session) throw new Response("No sandbox shop is installed", { status: 404 });
  return redirect("/app", {
    headers: { "Set-Cookie": await sandboxSignInCookie(session.shop) },
  });
};
