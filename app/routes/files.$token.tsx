import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileResponse, publicFile } from "../archive/files.server";
import { prisma } from "../db.server";

/**
 * A dispute attachment at its unguessable address, for the service's uploadFile to copy. It
 * answers for an hour after the merchant's upload; then, or for any other token, 404.
 */
export const loader = async ({ params }: LoaderFunctionArgs) => {
  const f = await publicFile(prisma, params.token ?? "");
  if (!f)
    return new Response("Not found", { status: 404, headers: { "cache-control": "no-store" } });
  return fileResponse(f);
};
