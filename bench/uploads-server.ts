/**
 * The server side of `npm run bench:uploads`: the real server (server/app-server.ts, Remix's
 * request handler) around one route that reads its post as the dispute pages do
 * (readUploadForm with DISPUTE_UPLOAD). Prints its port on stdout once listening.
 */
import { DISPUTE_UPLOAD } from "../app/disputes/forms.server";
import { readUploadForm, UploadRefusedError } from "../app/page-kit/upload-form.server";
import { createAppServer } from "../server/app-server";
import { captureRuntime, fakeBuild } from "../test/server/fake-build";

const build = fakeBuild({
  "app/disputes/:id": {
    action: async ({ request }: { request: Request }) => {
      try {
        const form = await readUploadForm(request, "uploads.myshopify.com", DISPUTE_UPLOAD);
        return Response.json({ files: (form.getAll("files") as File[]).map((f) => f.size) });
      } catch (error) {
        if (!(error instanceof UploadRefusedError)) throw error;
        return Response.json({ field: error.field, message: error.message }, { status: 422 });
      }
    },
  },
});
const app = createAppServer(build, {
  runtime: captureRuntime().runtime,
  requestTimeoutMs: 60_000,
});
console.log(String(await app.listen(0, "127.0.0.1")));
process.on("SIGTERM", () => void app.close(1000).then(() => process.exit(0)));
