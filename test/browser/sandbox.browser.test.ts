/**
 * The sandbox through a real browser (Debian's Chromium driven by playwright-core), as a new
 * user would go: sign in, connect the service account, match products by SKU, place a test
 * customer order, see it paid, ship it, see the tracking on the order page. Screenshots of
 * every page go to artifacts/screenshots/.
 *
 * Run with `npm run test:browser` (it builds first). CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SHOTS = "artifacts/screenshots";
let sandbox: ChildProcess;
let info: { url: string; signIn: string; apiKey: string; shop: string };
let browser: Browser;
let page: Page;
let dataDir: string;
let output = "";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function shot(name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** No page may carry a secret: the API key the user typed, or a webhook secret. */
async function expectNoSecrets() {
  const html = await page.content();
  expect(html).not.toContain(info.apiKey);
  expect(html).not.toMatch(/webhooks\/svc\/[A-Za-z0-9_-]{16,}/);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "sandbox-browser-"));
  const port = await freePort();
  sandbox = spawn("npx", ["tsx", "scripts/sandbox.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "development",
      PORT: String(port),
      SANDBOX_JSON: "1",
      SANDBOX_DATA_DIR: join(dataDir, "db"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start:\n${output}`)), 90_000);
    sandbox.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((l) => l.startsWith('{"ready":true'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    sandbox.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    sandbox.once("exit", (code) => reject(new Error(`sandbox exited ${code}:\n${output}`)));
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(30_000);
});

afterAll(async () => {
  await browser?.close();
  if (sandbox && sandbox.exitCode === null) {
    sandbox.kill("SIGTERM");
    await new Promise((r) => sandbox.once("exit", r));
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the sandbox in a browser", () => {
  it("signs the demo shop in and shows the dashboard", async () => {
    await page.goto(info.signIn);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await page.getByText("Welcome to Dropship Autopilot").waitFor();
    await shot("01-dashboard-new");
  });

  it("refuses a malformed API key by its field, then connects with the demo key", async () => {
    await page.getByRole("link", { name: "Settings" }).first().click();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    await page.getByLabel("API key").fill("short");
    await page.getByRole("button", { name: "Connect with API key" }).click();
    await page.getByText("The API key is at least 8 characters").waitFor();
    await shot("02-settings-error");

    await page.getByLabel("API key").fill(info.apiKey);
    await page.getByRole("button", { name: "Connect with API key" }).click();
    await page.getByText("Connected to the service").waitFor();
    await page.getByText("Registered", { exact: true }).waitFor();
    await page.getByText(/Balance:\s*500(\.00)? USD/).waitFor();
    await expectNoSecrets();
    await shot("03-settings-connected");
  });

  it("matches the shop's products to the catalog by SKU with a progress bar", async () => {
    await page.getByRole("link", { name: "Products" }).first().click();
    await page.getByRole("button", { name: "Auto-match by SKU" }).click();
    await page.locator('[data-bulk-state="completed"]').waitFor({ timeout: 120_000 });
    const summary = await page.locator('[data-bulk-state="completed"]').innerText();
    expect(summary).toMatch(/Done: [1-9]\d* connected/);
    await shot("04-products-matched");
  });

  it("places a test customer order and sees it paid", async () => {
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.getByRole("button", { name: "Place a test customer order" }).click();
    await page.getByText(/Test order #\d+ placed/).waitFor();
    const link = page.locator("[data-order-link]").first();
    await link.waitFor();
    await link.click();
    await page.getByRole("heading", { name: /^Order #\d+/ }).waitFor();
    await page.locator('[data-order-state="PAID"]').waitFor({ timeout: 90_000 });
    await shot("05-order-paid");
  });

  it("ships it and shows the tracking on the order page", async () => {
    await page.getByRole("button", { name: "Ship it" }).click();
    const tracking = page.locator("[data-tracking]:not([data-tracking=''])").first();
    await tracking.waitFor({ timeout: 90_000 });
    expect(await tracking.getAttribute("data-tracking")).toMatch(/\w{6,}/);
    await page.getByText("Sent to the shop").waitFor({ timeout: 90_000 });
    await expectNoSecrets();
    await shot("06-order-tracked");
  });

  it("counts the order on the dashboard", async () => {
    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await page.getByText("Orders by state").waitFor();
    await page.getByText("Account connected").waitFor();
    await expectNoSecrets();
    await shot("07-dashboard");
  });
});
