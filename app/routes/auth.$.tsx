import type { LoaderFunctionArgs } from "@remix-run/node";
import { authenticateAdmin } from "../pages/context.server";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  await authenticateAdmin(request);
  return null;
};
