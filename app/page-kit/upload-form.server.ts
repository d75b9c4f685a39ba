/**
 * A form post that carries files (the dispute forms' attachments), read as a stream (issue 37):
 * each file is counted as it arrives and the read stops at the first excess (one file too many,
 * a file over its size, a field over its length), so a 64 MB post never sits whole in memory.
 * Uploads are bounded per process and per shop: past that, a post is turned away at once with
 * a refusal the form shows by its field. A body that is not a readable form is a 400.
 */
import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { readForm } from "./forms.server";

export interface UploadLimits {
  /** The file input's name. */
  fileField: string;
  maxFiles: number;
  maxFileBytes: number;
  /** The longest text field (the message, the addresses). */
  maxFieldBytes: number;
}

/** Uploads read at once, in this process and per shop (each holds at most a few files). */
export const UPLOADS_PER_PROCESS = 4;
export const UPLOADS_PER_SHOP = 2;

/** A post refused for what it carries; `field` is where the form shows it. */
export class UploadRefusedError extends Error {
  override name = "UploadRefusedError";
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

const megabytes = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

let inProcess = 0;
const inShop = new Map<string, number>();

/**
 * The post's form. A multipart post is streamed within `limits` (throws UploadRefusedError at
 * the first excess, or when this shop or process already reads its share of uploads); any other
 * form is read as usual (the server's body limit for it is small). A body that cannot be read
 * as a form throws a 400 Response.
 */
export async function readUploadForm(
  request: Request,
  shop: string,
  limits: UploadLimits,
): Promise<FormData> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type)) return readForm(request);
  if (inProcess >= UPLOADS_PER_PROCESS || (inShop.get(shop) ?? 0) >= UPLOADS_PER_SHOP)
    throw new UploadRefusedError(
      "Another upload is still being received. Wait a moment, then send it again.",
      limits.fileField,
    );
  inProcess++;
  inShop.set(shop, (inShop.get(shop) ?? 0) + 1);
  try {
    return await unstable_parseMultipartFormData(request, uploadHandler(limits));
  } catch (error) {
    if (error instanceof UploadRefusedError) throw error;
    throw new Response("The form could not be read.", { status: 400 });
  } finally {
    inProcess--;
    const left = (inShop.get(shop) ?? 1) - 1;
    if (left > 0) inShop.set(shop, left);
    else inShop.delete(shop);
  }
}

/** Keeps each part within its limit as it streams; throws at the first byte too many. */
function uploadHandler(limits: UploadLimits): UploadHandler {
  let files = 0;
  return async ({ name, filename, contentType, data }) => {
    if (filename === undefined) {
      const text = await collect(data, limits.maxFieldBytes, () => {
        throw new UploadRefusedError("This is too long.", name);
      });
      return new TextDecoder().decode(text);
    }
    if (name !== limits.fileField)
      throw new UploadRefusedError("Files go in the files field only.", limits.fileField);
    // A file input left empty sends an empty part without a name.
    if (filename === "") {
      await collect(data, 0, () => undefined);
      return undefined;
    }
    if (++files > limits.maxFiles)
      throw new UploadRefusedError(`Attach at most ${limits.maxFiles} files.`, limits.fileField);
    const bytes = await collect(data, limits.maxFileBytes, () => {
      throw new UploadRefusedError(
        `${filename} is larger than ${megabytes(limits.maxFileBytes)}.`,
        limits.fileField,
      );
    });
    return new File([bytes], filename, { type: contentType });
  };
}

/** A part's bytes, at most `max` of them (`over` is called at the first byte past it). */
async function collect(
  data: AsyncIterable<Uint8Array>,
  max: number,
  over: () => void,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let kept = 0;
  for await (const chunk of data) {
    size += chunk.length;
    if (size > max) {
      over();
      continue;
    }
    chunks.push(chunk);
    kept += chunk.length;
  }
  const out = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
