/**
 * Downloading a file the service named (proof of delivery, warehouse photos): only from public
 * addresses (public-address.server.ts), within size and type limits (files.server.ts keeps it).
 */
import { type Dispatcher, fetch as undiciFetch } from "undici";
import { FileRefusedError, fileKind } from "./files.server";
import {
  AddressNotAllowedError,
  addressesOf,
  checkedAddresses,
  pinnedAgent,
  type Resolve,
  systemResolve,
} from "./public-address.server";

/** Limits of a download: the archive's (20 MB) or the dispute attachments' (10 MB). */
export interface DownloadOptions {
  maxBytes: number;
  /** A host that may be private (the service's own, in a sandbox or a test); others must be public. */
  trustedHost?: string;
  timeoutMs?: number;
  /** The fetch to use (tests); it is given the pinned dispatcher, and the default is undici's. */
  fetchImpl?: typeof fetch;
  /** How names are resolved (tests; default the system resolver). */
  resolve?: Resolve;
}

/**
 * Downloads a file the service named: http(s) only, at most 3 redirects, each to a public
 * address (or the trusted host): each name resolved once, every address it gives public, and
 * the connection made to the address checked (public-address.server.ts). HTTP 200, at most
 * `maxBytes`, and a kind the app keeps. Throws FileRefusedError for what trying again cannot
 * change, Error for what it may; neither names a port or a connection's own error.
 */
export async function downloadFile(
  address: string,
  opts: DownloadOptions,
): Promise<{ bytes: Buffer; type: string; ext: string }> {
  const { agent, pin } = pinnedAgent();
  try {
    return await download(address, opts, pin, agent);
  } finally {
    void agent.close().catch(() => {});
  }
}

interface FetchInit {
  signal: AbortSignal;
  redirect: "manual";
  dispatcher: Dispatcher;
}
type FetchLike = (url: string, init: FetchInit) => Promise<Response>;

async function download(
  address: string,
  opts: DownloadOptions,
  pin: (hostname: string, addresses: string[]) => void,
  dispatcher: Dispatcher,
): Promise<{ bytes: Buffer; type: string; ext: string }> {
  const doFetch = (opts.fetchImpl ?? undiciFetch) as unknown as FetchLike;
  const resolve = opts.resolve ?? systemResolve;
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 60_000);
  let url = address;
  for (let hop = 0; hop <= 3; hop++) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new FileRefusedError("not a valid address");
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
      throw new FileRefusedError("only http and https addresses are fetched");
    if (parsed.username || parsed.password)
      throw new FileRefusedError("addresses with a user name are not fetched");
    const hostname = parsed.hostname.replace(/^\[|\]$/g, "");
    // The trusted host's addresses are resolved like the rest, and not checked (it may be private).
    try {
      pin(
        hostname,
        parsed.host === opts.trustedHost
          ? await addressesOf(hostname, resolve)
          : await checkedAddresses(hostname, resolve),
      );
    } catch (error) {
      if (error instanceof AddressNotAllowedError) throw new FileRefusedError(error.message);
      throw error;
    }
    const res = await fetchOnce(doFetch, url, { redirect: "manual", signal, dispatcher });
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).toString();
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      const message = `the address answered HTTP ${res.status}`;
      // Gone or refused (an expired link) will not come back; a 5xx or 429 may.
      if (res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408)
        throw new FileRefusedError(message);
      throw new Error(message);
    }
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > opts.maxBytes) {
      await res.body?.cancel();
      throw new FileRefusedError(`the file is larger than ${opts.maxBytes / 1024 / 1024} MB`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > opts.maxBytes)
        throw new FileRefusedError(`the file is larger than ${opts.maxBytes / 1024 / 1024} MB`);
      chunks.push(Buffer.from(chunk));
    }
    const bytes = Buffer.concat(chunks);
    const kind = fileKind(bytes);
    if (!kind) throw new FileRefusedError("the file is not an image, a video or a PDF");
    return { bytes, type: kind.type, ext: kind.ext };
  }
  throw new FileRefusedError("the address redirects more than 3 times");
}

/**
 * One request. A connection that fails says only that (never the port, nor whether something
 * listened: no oracle of the network); a refused address is a FileRefusedError.
 */
async function fetchOnce(doFetch: FetchLike, url: string, init: FetchInit): Promise<Response> {
  try {
    return await doFetch(url, init);
  } catch (error) {
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause)
      if (e instanceof AddressNotAllowedError) throw new FileRefusedError(e.message);
    if (init.signal.aborted) throw new Error("the address did not answer in time");
    throw new Error("the address could not be reached");
  }
}
