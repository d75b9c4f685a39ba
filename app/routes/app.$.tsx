import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireAdmin } from "../pages/context.server";
import { RouteErrorBoundary } from "../components/NotFound";

/** Any other address under /app: a 404 inside the app's frame. */
export const loader = async ({ request }: LoaderFunctionArgs) => {
  await requireAdmin(request);
  throw new Response("Not found", { status: 404 });
};

export default function Missing() {
  return null;
}

export function ErrorBoundary() {
  return <RouteErrorBoundary />;
}
