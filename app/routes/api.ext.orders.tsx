/**
 * The Admin UI extensions' backend (extensions/): authenticated with the session token Shopify's
 * admin adds to the extension's fetch (`authenticate.admin`, CORS as the library does it), scoped
 * to that token's shop. GET `?id=<order GID>` (repeatable) reads the orders; POST
 * `{intent, ids, key}` starts an action, once per key.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { extensionOrders, idsSchema, startExtensionAction } from "../extension-api/api.server";
import { extensionJson, extensionRequest } from "../pages/extension-auth.server";
import { prisma } from "../db.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { shop, cors } = await extensionRequest(request);
  const ids = idsSchema.safeParse(new URL(request.url).searchParams.getAll("id"));
  if (!ids.success) return cors(extensionJson({ error: ids.error.issues[0]!.message }, 400));
  return cors(extensionJson({ orders: await extensionOrders(prisma, shop, ids.data) }));
};

export const action = async ({ request }: ActionFunctionArgs) => {
  const { shop, cors } = await extensionRequest(request);
  if (request.method !== "POST") return cors(extensionJson({ error: "Use POST." }, 405));
  const body: unknown = await request.json().catch(() => undefined);
  if (body === undefined) return cors(extensionJson({ error: "The body is not JSON." }, 400));
  const r = await startExtensionAction(prisma, shop, body);
  return cors(r.ok ? extensionJson(r, 202) : extensionJson({ error: r.error }, 400));
};
