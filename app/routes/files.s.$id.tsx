import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileOfLink, fileResponse } from "../archive/files.server";
import { prisma } from "../db.server";

/** A kept file (proof of delivery, a warehouse photo, an attachment) by a signed, hour-long link. */
export const loader = async ({ params, request }: LoaderFunctionArgs) => {
  const f = await fileOfLink(prisma, params.id ?? "", new URL(request.url).searchParams);
  if (!f)
    return new Response("Not found", { status: 404, headers: { "cache-control": "no-store" } });
  return fileResponse(f);
};
