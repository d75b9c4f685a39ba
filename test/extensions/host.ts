/**
 * One extension under test in a test file: the app (a harness shop on the simulators, the
 * extensions' backend over HTTP), a document, and Shopify's tester set up before each test with
 * the admin's fetch (session token added) in place of the tester's empty one.
 */
import { type AnyExtensionTarget, getExtension } from "@shopify/ui-extensions-tester";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { type Harness, startHarness } from "../fulfilment/harness";
import { adminFetch, serveExtensionBackend } from "../helpers/extension-backend";
import { installDom } from "./dom";

export function extensionUnderTest<T extends AnyExtensionTarget>(
  target: T,
  dir: string,
  shop: string,
) {
  const realFetch = globalThis.fetch;
  const extension = getExtension(target, { configSearchDir: dir });
  const ctx = {} as { h: Harness; app: Awaited<ReturnType<typeof serveExtensionBackend>> };
  let removeDom: (() => void) | undefined;
  /** The admin's fetch to the app at `url` (default: the running backend). */
  const fetchTo = (url = ctx.app.url) => adminFetch(ctx.h, url, shop, realFetch);
  const setUp = () => {
    extension.setUp();
    extension.fetch = fetchTo();
  };

  beforeAll(async () => {
    ctx.h = await startHarness({ shopDomain: shop, balance: "500.00" });
    ctx.app = await serveExtensionBackend();
    removeDom = installDom();
  });
  afterAll(async () => {
    removeDom?.();
    await ctx.app?.close();
    await ctx.h?.close();
  });
  beforeEach(setUp);
  afterEach(() => extension.tearDown());

  return {
    extension,
    /** The harness, once beforeAll has started it (read through, so usable at module level). */
    h: new Proxy({} as Harness, { get: (_, key) => ctx.h[key as keyof Harness] }),
    fetchTo,
    /** Closes the extension and sets it up afresh (the merchant opens it again). */
    reopen() {
      extension.tearDown();
      setUp();
    },
    /** An address where the app does not answer (it was served, then stopped). */
    async deadUrl() {
      const down = await serveExtensionBackend();
      await down.close();
      return down.url;
    },
  };
}
