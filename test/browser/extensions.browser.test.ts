/**
 * The three Admin UI extensions in Chromium: their bundles as `npm run build:extensions` makes
 * them, run in a page that plays the admin's part (the `shopify` global; `fetch` to the app with
 * a session token signed by the shop simulator) against the real app backend, with orders made
 * by the pipeline on the simulators. Shopify's published Polaris web components cannot be had
 * offline, so the page loads a small stand-in of ours (extension-host/polaris-standin.js).
 * Screenshots at 1280 and 390 px into artifacts/screenshots/extension-*.png; axe-core on each:
 * no critical or serious violation.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The app's configuration, as the unit tests' (vitest.config.ts) sets it, before any app module.
const { TEST_ENV } = await import("../env");
Object.assign(process.env, TEST_ENV);
await import("../setup-db");
const { startHarness, prisma } = await import("../fulfilment/harness");
const { serveExtensionBackend, adminFetch, settleUntil } = await import(
  "../helpers/extension-backend"
);
const { heldOrder, reviewOrder, failedOrder, shippedOrder } = await import("../extensions/orders");

const SHOTS = "artifacts/screenshots";
const SHOP = "ext-preview.myshopify.com";
const HOST_DIR = join(import.meta.dirname, "extension-host");

type Harness = Awaited<ReturnType<typeof startHarness>>;
let h: Harness;
let app: Awaited<ReturnType<typeof serveExtensionBackend>>;
let preview: { url: string; close(): Promise<void> };
let browser: Browser;
let page: Page;
let bundles: string;
/** The app unreachable: the admin's fetch to it fails (the connection is dropped). */
let appDown = false;

beforeAll(async () => {
  h = await startHarness({ shopDomain: SHOP, balance: "500.00" });
  app = await serveExtensionBackend();
  bundles = mkdtempSync(join(tmpdir(), "ext-bundles-"));
  execFileSync(process.execPath, ["scripts/build-extensions.mjs", "--out", bundles]);
  const toApp = adminFetch(h, app.url, SHOP, fetch);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    void (async () => {
      if (path.startsWith("/api/ext/") && appDown) {
        req.socket.destroy();
        return;
      }
      if (path.startsWith("/api/ext/")) {
        // The admin's part: the extension's fetch reaches the app with the session token.
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const r = await toApp(req.url!, {
          method: req.method,
          headers: { "Content-Type": req.headers["content-type"] ?? "application/json" },
          body: req.method === "GET" ? undefined : Buffer.concat(chunks),
        });
        res.writeHead(r.status, { "Content-Type": "application/json" });
        res.end(Buffer.from(await r.arrayBuffer()));
        return;
      }
      const file =
        path === "/"
          ? join(HOST_DIR, "index.html")
          : path === "/polaris-standin.js"
            ? join(HOST_DIR, "polaris-standin.js")
            : /^\/ext\/[\w-]+\.js$/.test(path)
              ? join(bundles, path.slice("/ext/".length))
              : null;
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      const type = file.endsWith(".html") ? "text/html" : "text/javascript";
      res.writeHead(200, { "Content-Type": `${type}; charset=utf-8` }).end(readFileSync(file));
    })().catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  preview = {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await preview?.close();
  await app?.close();
  await h?.close();
  if (bundles) rmSync(bundles, { recursive: true, force: true });
});

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/** Screenshots at 1280 and 390 px; axe-core at both: no critical or serious violation. */
async function shoot(name: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `${SHOTS}/extension-${name}-${width}.png`, fullPage: true });
    await page.addScriptTag({ content: axeSource });
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as {
          axe: { run(): Promise<{ violations: Array<{ id: string; impact: string }> }> };
        }
      ).axe;
      return (await axe.run()).violations.filter(
        (v) => v.impact === "critical" || v.impact === "serious",
      );
    });
    expect(violations.map((v) => `${v.id} (${v.impact})`)).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function open(handle: string, target: string, ids: string[]) {
  const q = new URLSearchParams({ handle, target });
  for (const id of ids) q.append("id", id);
  await page.goto(`${preview.url}/?${q}`);
}

describe("the admin extensions in Chromium", () => {
  it("the order block: held, shipped with tracking, not handled, the app unreachable", async () => {
    const held = await heldOrder(h);
    await open("dropship-order-block", "admin.order-details.block.render", [held.gid]);
    await page.getByText("Why").waitFor();
    expect(await page.locator("s-button").innerText()).toBe("Release");
    await shoot("block-held");

    const shipped = await shippedOrder(h, "TRK-PREVIEW-1");
    await open("dropship-order-block", "admin.order-details.block.render", [shipped.gid]);
    await page.getByText("TRK-PREVIEW-1").waitFor();
    await shoot("block-shipped");

    // An order the app does not handle: the empty state.
    await open("dropship-order-block", "admin.order-details.block.render", [
      "gid://shopify/Order/31337",
    ]);
    await page.getByText("The app does not handle this order", { exact: false }).waitFor();
    await shoot("block-not-handled");

    // The app unreachable: a clear error and Try again, which loads it once the app is back.
    appDown = true;
    await open("dropship-order-block", "admin.order-details.block.render", [shipped.gid]);
    await page.getByText("The app could not be reached", { exact: false }).waitFor();
    await shoot("block-app-down");
    appDown = false;
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByText("TRK-PREVIEW-1").waitFor();
  });

  it("the order action: the confirmation, then Send now and its outcome", async () => {
    const review = await reviewOrder(h);
    await open("dropship-order-action", "admin.order-details.action.render", [review.gid]);
    await page.getByText("Send now places the order", { exact: false }).waitFor();
    await shoot("action-confirm");
    // A double click sends once.
    const runs = await prisma.bulkRun.count();
    await page.getByRole("button", { name: "Send now" }).dblclick();
    await settleUntil(h, async () =>
      expect(await page.getByRole("button", { name: "Done" }).count()).toBe(1),
    );
    expect(await prisma.bulkRun.count()).toBe(runs + 1);
    await shoot("action-outcome");
  });

  it("the bulk action: the selection counted, then each order's result", async () => {
    const review = await reviewOrder(h);
    const failed = await failedOrder(h);
    await open("dropship-order-bulk-action", "admin.order-index.selection-action.render", [
      review.gid,
      failed.gid,
      "gid://shopify/Order/424242",
    ]);
    await page.getByText("1 held").waitFor();
    await shoot("bulk-selection");
    const runs = await prisma.bulkRun.count();
    await page.getByRole("button", { name: "Retry failed (1)" }).dblclick();
    await settleUntil(h, async () =>
      expect(await page.getByText("Retry failed: 1 done.").count()).toBe(1),
    );
    expect(await prisma.bulkRun.count()).toBe(runs + 1);
    await shoot("bulk-results");
  });
});
