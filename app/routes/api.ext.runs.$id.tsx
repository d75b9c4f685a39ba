/** An action started from an extension: its progress and each order's result (this shop's). */
import type { LoaderFunctionArgs } from "@remix-run/node";
import { extensionRun } from "../extension-api/api.server";
import { extensionJson, extensionRequest } from "../pages/extension-auth.server";
import { prisma } from "../db.server";

export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { shop, cors } = await extensionRequest(request);
  const run = await extensionRun(prisma, shop, params.id ?? "");
  return cors(run ? extensionJson({ run }) : extensionJson({ error: "No such action." }, 404));
};
