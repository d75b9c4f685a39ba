/**
 * The sandbox through a real browser (Debian's Chromium driven by playwright-core), as a new
 * user would go: sign in, connect the service account, match products by SKU, place a test
 * customer order, see it paid, ship it, see the tracking on the order page; then an order held
 * because Shopify withholds the customer's data, as the merchant sees it. Every page is screenshotted at 1280 px and at a 390 px phone width into
 * artifacts/screenshots/, and checked with axe-core at both widths: no critical or serious
 * violation.
 *
 * Run with `npm run test:browser` (it builds first). CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG_1PX } from "../helpers/file-server";
import { SHOTS, type Sandbox, type SandboxInfo, startSandbox } from "./harness";

let sandbox: Sandbox;
let info: SandboxInfo;
let page: Page;
/** The tracking number and order name of the order shipped in the sandbox. */
let shippedTracking = "";
let shippedOrder = "";

const shot = (name: string) => sandbox.shot(name);
const shopSim = (path: string, body: unknown) => sandbox.shopSim(path, body);
const simOrders = (count: number) => sandbox.simOrders(count);

/** The count a view of the Orders page shows, e.g. "Needs attention (3)". */
async function viewCount(view: string): Promise<number> {
  const text = await page.locator(`[data-view="${view}"]`).innerText();
  return Number(/\((\d+)\)/.exec(text)?.[1] ?? NaN);
}

/** Places a test customer order from the Orders page; returns its name (`#1002`). */
async function placeTestOrder(): Promise<string> {
  await page.getByRole("link", { name: "Orders" }).first().click();
  await page.getByRole("heading", { name: "Orders" }).waitFor();
  const text = page.getByText(/Test order #\d+ placed/);
  const nameNow = async () =>
    (await text.count()) ? (/#\d+/.exec(await text.last().innerText())?.[0] ?? "") : "";
  const before = await nameNow();
  // The Orders page refreshes itself every 4 s; a click that lands on a refresh can go unheard
  // (a known fault of the page, issue 15's "Expected fetcher"): click again, as a merchant would.
  for (let attempt = 1; ; attempt++) {
    await page.getByRole("button", { name: "Place a test customer order" }).click();
    try {
      await expect.poll(nameNow, { timeout: 20_000 }).not.toBe(before);
      break;
    } catch (error) {
      if (attempt < 3) continue;
      await page.screenshot({ path: join(SHOTS, "failed-place-test-order.png"), fullPage: true });
      console.error("Orders page when placing failed:", await page.locator("body").innerText());
      throw error;
    }
  }
  return nameNow();
}

/** No page may carry a secret: the API key the user typed, or a webhook secret. */
async function expectNoSecrets() {
  const html = await page.content();
  expect(html).not.toContain(info.apiKey);
  expect(html).not.toMatch(/webhooks\/svc\/[A-Za-z0-9_-]{16,}/);
}

/** A time as the merchant reads it: the sandbox shop is in New York ("28 Nov 2026, 09:57 GMT-5"). */
const SHOP_TIME = /\b\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} GMT-[45]\b/;

/** Every time in `where` is in the shop's zone: at least one shows, none in UTC. */
async function expectShopTimes(where: Locator) {
  const text = await where.innerText();
  expect(text).toMatch(SHOP_TIME);
  expect(text).not.toMatch(/\bUTC\b/);
}

beforeAll(async () => {
  sandbox = await startSandbox();
  info = sandbox.info;
  page = sandbox.page;
});

afterAll(async () => {
  await sandbox?.stop();
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
    // The webhooks' registration and the token's validity, in the shop's time.
    await expectShopTimes(page.getByText(/^Access token: valid until /));
    await expectShopTimes(page.getByText(/^on \d/));
    // Disconnect asks first; "Go back" keeps the account.
    await page.getByRole("button", { name: "Disconnect" }).click();
    await page.getByText("Disconnect from the service?").waitFor();
    await page.getByRole("button", { name: "Go back" }).click();
    await page.getByText("Disconnect from the service?").waitFor({ state: "detached" });
    await page.getByText(/Balance:\s*500(\.00)? USD/).waitFor();
    // A refused save keeps what was typed, with the error by the field.
    const review = page.getByLabel("Review window (minutes)");
    await review.fill("99999");
    await page
      .locator("[data-save-bar]")
      .getByRole("button", { name: "Save", exact: true })
      .click();
    await page
      .getByText(/too big|at most|less than or equal/i)
      .first()
      .waitFor();
    await expect.poll(() => review.inputValue()).toBe("99999");
    // Back to the saved value: nothing left to save, the bar goes; the refused value was
    // never saved.
    await review.fill("0");
    await page.locator("[data-save-bar]").waitFor({ state: "detached" });
    await page.reload();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    expect(await page.getByLabel("Review window (minutes)").inputValue()).toBe("0");
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
    // Connections made in the service's console are read on demand too.
    await page.getByRole("button", { name: "Read the service's connections" }).click();
    await page
      .getByText(/Reading the connections made at the service/)
      .first()
      .waitFor();
  });

  it("imports a catalog product into the shop (a double click imports it once), then shows its facts", async () => {
    await page.getByRole("link", { name: "Catalog" }).first().click();
    await page.getByRole("heading", { name: "Catalog" }).waitFor();
    const imports = () => page.locator("[data-import-status]").count();
    const before = await imports();
    await page
      .getByRole("button", { name: /^Import / })
      .first()
      .dblclick();
    await page
      .getByText(/Import started/)
      .first()
      .waitFor();
    await page.locator('[data-import-status="done"]').first().waitFor({ timeout: 90_000 });
    expect(await imports()).toBe(before + 1);
    await page
      .getByText(/variants in your shop, connected and stocked/)
      .first()
      .waitFor();
    await shot("04c-catalog-imported");

    // The Products page shows what the supplier says of the imported variants.
    await page.getByRole("link", { name: "Products" }).first().click();
    await page.getByRole("heading", { name: "Products" }).waitFor();
    await page.getByText("Imported", { exact: true }).first().waitFor();
    await page.getByRole("button", { name: /Quote shipping to US/ }).click();
    await page
      .getByText(/Shipping quoted for \d+ catalog variants/)
      .first()
      .waitFor({
        timeout: 60_000,
      });
    await page
      .getByText(/^\$\d+\.\d\d$/)
      .first()
      .waitFor();
    await shot("04d-products-facts");

    // The supplier's stock moves: the sync log tells it, at the shop's time.
    const [first] = (await (await fetch(`${info.svcSimUrl}/__sim/catalog?limit=1`)).json()) as {
      variants: { vid: string }[];
    }[];
    const moved = await fetch(
      `${info.svcSimUrl}/__sim/catalog/${first!.variants[0]!.vid}/variant`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ inventory: { CN: 7 } }),
      },
    );
    expect(moved.status).toBe(200);
    const stockSet = page.getByText(/^Stock set · /).first();
    await expect
      .poll(
        async () => {
          if (await stockSet.isVisible()) return true;
          await page.reload();
          await page.getByRole("heading", { name: "Products" }).waitFor();
          return stockSet.isVisible();
        },
        { timeout: 90_000, interval: 3000 },
      )
      .toBe(true);
    await expectShopTimes(stockSet.locator(".."));
    await stockSet.scrollIntoViewIfNeeded();
    await shot("04e-products-sync-log");
  });

  it("offers shipping methods from the service's freight quote, with price and days", async () => {
    await page.getByRole("link", { name: "Settings" }).first().click();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    await page.getByRole("button", { name: "Show methods" }).first().click();
    await page
      .getByText(/Offered from CN to /)
      .first()
      .waitFor();
    await page
      .getByText(/Express Air: \d+\.\d\d USD, \d+–\d+ days/)
      .first()
      .waitFor();
    await shot("04b-settings-shipping");
  });

  it("places a test customer order and sees it paid, then tracked with a sandbox test number", async () => {
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.getByRole("button", { name: "Place a test customer order" }).click();
    await page.getByText(/Test order #\d+ placed/).waitFor();
    const link = page.locator("[data-order-link]").first();
    await link.waitFor();
    await link.click();
    await page.getByRole("heading", { name: /^Order #\d+/ }).waitFor();
    // Sandbox: once paid, the app sets a test tracking number (sandbox/updateTrackNumber).
    await page.locator('[data-order-state="FULFILLED"]').waitFor({ timeout: 90_000 });
    await page.locator('[data-tracking^="SBX-"]').waitFor({ timeout: 30_000 });
    await shot("05-order-paid");
  });

  it("ships it and shows the tracking on the order page", async () => {
    await page.getByRole("button", { name: "Ship it" }).click();
    // Shipped again under a carrier-like number, which replaces the sandbox's test number.
    const tracking = page
      .locator("[data-tracking]:not([data-tracking='']):not([data-tracking^='SBX-'])")
      .first();
    await tracking.waitFor({ timeout: 90_000 });
    shippedTracking = (await tracking.getAttribute("data-tracking")) ?? "";
    shippedOrder = (await page.getByRole("heading", { name: /^Order #\d+/ }).innerText()).slice(6);
    expect(shippedTracking).toMatch(/^[A-Z]{2}\d{9}CN$/);
    await page.getByText("Sent to the shop", { exact: true }).first().waitFor({ timeout: 90_000 });
    await expectNoSecrets();
    await shot("06-order-tracked");
  });

  it("shows the delivered order's proof of delivery from the app's copy, also once the service's link expired", async () => {
    const svcOrder = await page.locator("text=/^SO\\d+$/").first().innerText();
    const sim = (path: string, body: unknown = {}) =>
      fetch(`${info.svcSimUrl}/__sim/${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await sim(`orders/${svcOrder}/deliver`)).status).toBe(200);
    // The tracking hears of the delivery, asks for the proof, and the archive copies it; the
    // order page refreshes itself.
    const proof = page.locator('[data-archived="proof_of_delivery"] img');
    await proof.waitFor({ timeout: 90_000 });
    expect((await sim("files/expire")).status).toBe(200);
    try {
      await page.reload();
      await proof.waitFor();
      await expect
        .poll(() => proof.evaluate((img) => (img as HTMLImageElement).naturalWidth))
        .toBe(1);
      await shot("07-order-delivered-proof");
    } finally {
      await sim("files/expire", { expired: false });
    }
  });

  it("opens a dispute on the shipped order with a photo, replies, reads support's answer, cancels it", async () => {
    const orderUrl = page.url();
    // No dispute yet: the list's empty state says where disputes come from.
    await page
      .getByRole("link", { name: /^Disputes/ })
      .first()
      .click();
    await page.getByText("No disputes here").waitFor();
    await shot("29-disputes-empty");
    await page.goto(orderUrl);
    // From the order page (the shipped order).
    await page.getByRole("link", { name: "Open a dispute" }).click();
    await page.getByRole("heading", { name: /^Open a dispute on #\d+/ }).waitFor();
    await shot("30-dispute-open-form");
    // No reason chosen: refused by its field, what was typed stays.
    await page.getByLabel("Describe the problem").fill("The lamp arrived with a cracked shade.");
    await page.getByRole("button", { name: "Open dispute" }).click();
    await page.getByText("Choose a reason").nth(1).waitFor();
    expect(await page.getByLabel("Describe the problem").inputValue()).toBe(
      "The lamp arrived with a cracked shade.",
    );
    await shot("31-dispute-open-refused");
    await page
      .getByLabel(/^Quantity of /)
      .first()
      .fill("1");
    await page.getByLabel("Reason").selectOption({ label: "Item damaged" });
    await page.getByLabel("Photos or videos", { exact: true }).setInputFiles({
      name: "cracked.png",
      mimeType: "image/png",
      buffer: PNG_1PX,
    });
    // A double click opens one dispute.
    await page.getByRole("button", { name: "Open dispute" }).dblclick();
    const heading = page.getByRole("heading", { name: /^Dispute \d+$/ });
    await heading.waitFor({ timeout: 60_000 });
    const svcId = (await heading.innerText()).slice("Dispute ".length);
    const creates = (await (await fetch(`${info.svcSimUrl}/__sim/calls`)).json()) as {
      op: string;
      code?: number;
    }[];
    expect(creates.filter((c) => c.op === "disputeCreate" && c.code === 200)).toHaveLength(1);
    await page.getByText("The lamp arrived with a cracked shade.").waitFor();
    await page.getByRole("link", { name: "Photo 1" }).waitFor();
    await shot("32-dispute-opened");

    // A reply with emoji: the service keeps the words.
    await page.getByLabel("Your message").fill("Here is a second photo 📷 of the box.");
    const picker = page.getByLabel("Photos or videos", { exact: true });
    await picker.setInputFiles({ name: "box.png", mimeType: "image/png", buffer: PNG_1PX });
    const replies = async () =>
      ((await (await fetch(`${info.svcSimUrl}/__sim/calls?op=disputeReply`)).json()) as unknown[])
        .length;
    const repliesBefore = await replies();
    // A double click sends one reply.
    await page.getByRole("button", { name: "Send reply" }).dblclick();
    await page.getByText("Reply sent").first().waitFor();
    await page.getByText("Here is a second photo  of the box.").waitFor();
    // The reply carries its photo; the form is empty again (text and chosen file).
    await expect.poll(() => page.getByRole("link", { name: "Photo 1" }).count()).toBe(2);
    expect(await page.getByLabel("Your message").inputValue()).toBe("");
    expect(await page.getByLabel("Photos or videos", { exact: true }).inputValue()).toBe("");
    expect(await replies()).toBe(repliesBefore + 1);

    // Support answers at the service; "Check now" on the list brings it in.
    const res = await fetch(`${info.svcSimUrl}/__sim/disputes/${svcId}/status`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ status: 200, message: "Sorry about that. A refund is on its way." }),
    });
    expect(res.status).toBe(200);
    await page
      .getByRole("link", { name: /^Disputes/ })
      .first()
      .click();
    await page.getByRole("heading", { name: "Disputes" }).waitFor();
    await page.getByRole("button", { name: "Check now" }).click();
    await page.getByText("1 new message from support").first().waitFor();
    await page.getByRole("link", { name: "Disputes (1)" }).first().waitFor();
    expect(await viewCount("unread")).toBe(1);
    await expectShopTimes(page.locator("table"));
    await shot("33-disputes-list");
    await page.getByRole("link", { name: `Dispute ${svcId}` }).click();
    await page.getByText("Sorry about that. A refund is on its way.").waitFor();
    await page.getByText("Pending review").first().waitFor();
    await expectShopTimes(page.getByRole("list", { name: "Messages" }));
    await expectShopTimes(page.getByText("Opened", { exact: true }).locator(".."));
    await shot("34-dispute-answered");

    // Cancel, asking first.
    await page.getByRole("button", { name: "Cancel dispute" }).click();
    await page.getByRole("button", { name: "Confirm: cancel dispute" }).dblclick();
    await page.getByText("Dispute cancelled").first().waitFor();
    const cancels = (await (
      await fetch(`${info.svcSimUrl}/__sim/calls?op=disputeCancel`)
    ).json()) as unknown[];
    expect(cancels).toHaveLength(1);
    await page.getByText("This dispute is cancelled: it takes no more messages.").waitFor();
    expect(await page.getByRole("button", { name: "Send reply" }).count()).toBe(0);
    await shot("35-dispute-cancelled");
    await expectNoSecrets();
  });

  it("shows the private inventory read-only: products and variants, stock by warehouse and batches, records", async () => {
    await page.getByRole("link", { name: "Inventory" }).first().click();
    await page.getByRole("heading", { name: "Inventory" }).waitFor();
    const product = page.locator("table a").first();
    await product.waitFor();
    await product.click();
    await page.getByRole("heading", { name: /^Variants of / }).waitFor();
    await shot("40-inventory-products");
    await page.locator('[data-view="stock"]').click();
    const sku = page.getByRole("region", { name: "Stock by warehouse" }).locator("a").first();
    await sku.waitFor();
    const skuText = await sku.innerText();
    await sku.click();
    await page.getByRole("heading", { name: "Inbound batches" }).waitFor();
    await page.getByText(`STOCK-${skuText}-`).first().waitFor();
    await shot("41-inventory-stock");
    await page.locator('[data-view="records"]').click();
    await page.getByText("Stock received").first().waitFor();
    await expectShopTimes(page.getByRole("table"));
    // Search by SKU narrows the records; an unknown SKU says so.
    await page.getByRole("textbox", { name: "Search" }).fill("NO-SUCH-SKU");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText("No records match").waitFor();
    await shot("42-inventory-records-empty");
  });

  it("says so when the service fails: the inventory, the dispute form, Check now", async () => {
    const faults = `${info.svcSimUrl}/__sim/faults`;
    const set = await fetch(faults, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ rate5xx: 1 }),
    });
    expect(set.status).toBe(200);
    try {
      await page.getByRole("link", { name: "Inventory" }).first().click();
      await page.getByText("The inventory cannot be shown").waitFor({ timeout: 60_000 });
      await shot("43-inventory-service-down");
      await page
        .getByRole("link", { name: /^Disputes/ })
        .first()
        .click();
      await page.getByRole("heading", { name: "Disputes" }).waitFor();
      await page.getByRole("button", { name: "Check now" }).dblclick();
      await page.getByText("The service is not answering now.", { exact: false }).first().waitFor({
        timeout: 60_000,
      });
      await shot("36-disputes-service-down");
      // The dispute's order: its form cannot be shown without the service.
      const orderHref = await page
        .locator('table a[href*="/app/orders/"]')
        .first()
        .getAttribute("href");
      const orderId = orderHref!.split("/app/orders/")[1]!.split("?")[0]!;
      await page.goto(new URL(`/app/disputes/new?order=${orderId}`, page.url()).toString());
      await page.getByText("The dispute form cannot be shown").waitFor({ timeout: 60_000 });
      await shot("37-dispute-form-service-down");
    } finally {
      await fetch(faults, { method: "DELETE" });
    }
  });

  it("counts the order on the dashboard", async () => {
    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await page.getByText("Orders by state").waitFor();
    await page.getByText("Account connected").waitFor();
    await expectNoSecrets();
    await shot("07-dashboard");
  });

  it("offers on a selection only the bulk actions that fit it", async () => {
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.getByRole("heading", { name: "Orders" }).waitFor();
    await page.locator("[data-order-link]").first().waitFor();
    await page.getByRole("checkbox").nth(1).check({ force: true });
    await page.getByText("1 selected", { exact: true }).first().waitFor();
    // A paid order: nothing to pay, retry, hold or cancel.
    for (const name of [/^Pay now/, /^Retry/, /^Hold/, /^Cancel/]) {
      expect(await page.getByRole("button", { name }).count()).toBe(0);
    }
    await shot("07b-orders-selection");
    await page.getByRole("button", { name: "Clear selection" }).click();
  });

  it("holds an order whose customer data Shopify withholds, and says which access is missing", async () => {
    await shopSim("protected-customer-data", { granted: false });
    const name = await placeTestOrder();
    await page.locator(`[data-order-link="${name}"]`).click({ timeout: 30_000 });
    await page.locator('[data-order-state="HELD"]').waitFor({ timeout: 90_000 });
    await page
      .getByText(/protected customer data/i)
      .first()
      .waitFor();
    await shot("08-order-held-protected-data");
    await shopSim("protected-customer-data", { granted: true });
  });

  it("places one order for a double click on “Place a test customer order”", async () => {
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.getByRole("heading", { name: "Orders" }).waitFor();
    const before = await viewCount("all");
    await page.getByRole("button", { name: "Place a test customer order" }).dblclick();
    await page.getByText(/Test order #\d+ placed/).waitFor();
    await expect.poll(() => viewCount("all"), { timeout: 30_000 }).toBe(before + 1);
    // Still one more after the list has refreshed itself a few times.
    await page.waitForTimeout(5000);
    expect(await viewCount("all")).toBe(before + 1);
    expect(await page.getByText("Expected fetcher").count()).toBe(0);
  });

  it("finds the shipped order by its tracking number, on a desktop and on a phone", async () => {
    expect(shippedTracking).not.toBe("");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.getByRole("textbox", { name: "Search" }).fill(shippedTracking);
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/q=/);
      await expect.poll(() => page.locator("[data-order-link]").count()).toBe(1);
      expect(await page.locator("[data-order-link]").first().innerText()).toBe(shippedOrder);
      if (width === 1280) await shot("09-orders-search-tracking");
      await page.getByRole("link", { name: "Clear" }).click();
      await page.waitForURL((u) => !u.search.includes("q="));
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("warns of a service outage on the dashboard, and not once the service answers", async () => {
    const faults = `${info.svcSimUrl}/__sim/faults`;
    const set = await fetch(faults, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ rate5xx: 1 }),
    });
    expect(set.status).toBe(200);
    try {
      await page.getByRole("link", { name: "Dashboard" }).first().click();
      await page.getByText("The service is not answering").first().waitFor({ timeout: 30_000 });
      expect(await page.getByText("Nothing needs you.").count()).toBe(0);
      await shot("10-dashboard-outage");
    } finally {
      expect((await fetch(faults, { method: "DELETE" })).status).toBe(200);
    }
    await page.reload();
    await page
      .getByText(/\d+(\.\d+)? USD/)
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await expect
      .poll(() => page.getByText("The service is not answering").count(), { timeout: 30_000 })
      .toBe(0);
  });

  it("retries 30 held orders at once, with a result per order", async () => {
    // Shopify withholds the customers' data: every new order waits for it.
    await shopSim("protected-customer-data", { granted: false });
    await simOrders(30);
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.locator('[data-view="attention"]').click();
    await expect
      .poll(() => viewCount("attention"), { timeout: 120_000 })
      .toBeGreaterThanOrEqual(30);
    await page.reload();
    // Granted (in the Partner Dashboard): the merchant retries them all.
    await shopSim("protected-customer-data", { granted: true });
    await page.getByRole("checkbox").first().check({ force: true });
    const retry = page.getByRole("button", { name: /^Retry \(\d+\)$/ });
    await retry.waitFor();
    const n = Number(/\d+/.exec(await retry.innerText())![0]);
    expect(n).toBeGreaterThanOrEqual(30);
    await retry.click();
    await page.getByRole("button", { name: `Retry ${n} orders` }).click();
    await page.getByText(new RegExp(`^Retry: ${n} done, 0 refused$`)).waitFor({ timeout: 120_000 });
    expect(await page.locator("[data-bulk-result]").count()).toBe(n);
    await shot("11-orders-bulk-retry");
  });

  it("emails one digest for many held orders, caught by the sandbox's SMTP server", async () => {
    type Mail = { subject: string; text: string; to: string[] };
    const mails = async () => (await (await fetch(`${info.mailSimUrl}/mails`)).json()) as Mail[];
    expect(await mails()).toHaveLength(0); // no address set yet: nothing was sent
    // Shopify withholds the customers' data again: twelve new orders are held.
    await shopSim("protected-customer-data", { granted: false });
    await page.getByRole("link", { name: "Orders" }).first().click();
    const before = await viewCount("attention");
    await simOrders(12);
    await expect
      .poll(() => viewCount("attention"), { timeout: 120_000 })
      .toBeGreaterThanOrEqual(before + 12);

    // The merchant asks for emails, with held orders told of at once.
    await page.getByRole("link", { name: "Settings" }).first().click();
    await page.getByLabel("Send to").fill("not-an-address");
    await page
      .locator("[data-save-bar]")
      .getByRole("button", { name: "Save", exact: true })
      .click();
    // By the field, and in the page's "Not saved" banner above.
    await page
      .locator('[data-settings-card="save-notifications"]')
      .getByText("Enter email addresses like name@example.com, separated by commas")
      .waitFor();
    await page
      .getByText(/One field needs a change: see the message below\. Nothing was changed\./)
      .waitFor();
    expect(await page.getByLabel("Send to").inputValue()).toBe("not-an-address");
    await page.getByLabel("Send to").fill("merchant@example.com, partner@example.com");
    await page.getByLabel("Tell of a held order after (minutes)").fill("0");
    await page
      .locator("[data-save-bar]")
      .getByRole("button", { name: "Save", exact: true })
      .click();
    await page.getByText("Notification settings saved").first().waitFor();
    // Settled: the form shows what was saved, the save bar gone (nothing left unsaved).
    await page.locator("[data-save-bar]").waitFor({ state: "detached" });
    expect(await page.getByLabel("Send to").inputValue()).toBe(
      "merchant@example.com, partner@example.com",
    );
    await page.locator('[data-settings-card="save-notifications"]').scrollIntoViewIfNeeded();
    await shot("13-settings-notifications");

    // The app looks every minute; "Check now" looks at once. Either way: one email.
    await page.getByRole("link", { name: "Mail" }).first().click();
    await page.getByRole("heading", { name: "Caught emails" }).waitFor();
    await page.getByRole("button", { name: "Check now" }).click();
    // On a loaded machine the check can come before the held orders' notes are due: the
    // merchant presses Check now again (every 20 s here); still exactly one email.
    let pressed = Date.now();
    await expect
      .poll(
        async () => {
          const n = (await mails()).length;
          if (n === 0 && Date.now() - pressed > 20_000) {
            pressed = Date.now();
            await page.getByRole("button", { name: "Check now" }).click();
          }
          return n;
        },
        { timeout: 180_000 },
      )
      .toBe(1);
    const [mail] = await mails();
    expect(mail!.to.sort()).toEqual(["merchant@example.com", "partner@example.com"]);
    expect(mail!.subject).toMatch(/\b\d+ orders held\b.* · demo-shop$/);
    const held = Number(/(\d+) orders held/.exec(mail!.subject)![1]);
    expect(held).toBeGreaterThanOrEqual(12);
    expect(mail!.text).toMatch(/Orders that need you \(\d+\)/);
    // One line for the one cause, the orders named under it.
    expect(mail!.text).toMatch(/- \d+ orders held: .*protected customer data/i);
    await page.locator("[data-mail]").first().waitFor();
    expect(await page.locator("[data-mail]").count()).toBe(1);
    await expectShopTimes(page.locator("[data-mail]"));
    // Nothing new and the digest's minutes not over: no second email.
    await page.getByRole("button", { name: "Check now" }).click();
    await page
      .getByText(/No email: nothing due/)
      .first()
      .waitFor();
    expect(await mails()).toHaveLength(1);
    await shot("14-sandbox-mail");
    await shopSim("protected-customer-data", { granted: true });
  }, 420_000);

  it("unsubscribes from a kind of email by the email's link, asking first", async () => {
    const [mail] = (await (await fetch(`${info.mailSimUrl}/mails`)).json()) as { text: string }[];
    const link = /Stop emails about “Orders that failed or stay held”: (\S+)/.exec(mail!.text)?.[1];
    expect(link).toBeDefined();
    await page.goto(link!);
    await page
      .getByText(/Stop emails about “Orders that failed or stay held” from demo-shop/)
      .waitFor();
    await shot("15-unsubscribe");
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await page.getByText("Unsubscribed").first().waitFor();
    await page.goto(`${info.url}/app/settings`);
    expect(
      await page
        .getByLabel("Orders that failed, or stay held longer than the time below")
        .isChecked(),
    ).toBe(false);
    expect(
      await page.getByLabel("The service not answering, and answering again").isChecked(),
    ).toBe(true);
  });

  it("shows an address that does not exist inside the app, with the way back", async () => {
    await page.goto(`${info.url}/app/no-such-page`);
    await page.getByText("This page does not exist").waitFor();
    await page.getByRole("link", { name: "Orders" }).first().waitFor();
    await shot("12-not-found");
    await page.goto(`${info.url}/app/orders/no-such-order`);
    await page.getByText("This order does not exist").waitFor();
  });

  it("wrote none of the secrets it used to its log", async () => {
    const secrets = new Set<string>([info.apiKey]);
    const deliveries = (await (await fetch(`${info.svcSimUrl}/__sim/webhooks`)).json()) as {
      url: string;
    }[];
    for (const d of deliveries) {
      const secret = /\/webhooks\/svc\/([^/?#]+)/.exec(d.url)?.[1];
      if (secret) secrets.add(secret);
    }
    const tokens = (await (await fetch(`${info.svcSimUrl}/__sim/tokens`)).json()) as {
      accessToken: string;
      refreshToken: string;
    }[];
    for (const t of tokens) secrets.add(t.accessToken).add(t.refreshToken);
    // The API key, at least one webhook secret, and the service's tokens.
    expect(secrets.size).toBeGreaterThanOrEqual(4);
    // The harness's own ready line hands the demo key to this test; the rest is the app's log.
    const lines = sandbox
      .output()
      .split("\n")
      .filter((l) => !l.startsWith('{"ready":true'));
    const requestLines = lines.filter((l) => l.includes('"msg":"request"'));
    expect(requestLines.some((l) => l.includes("/webhooks/svc/[redacted]"))).toBe(true);
    const log = lines.join("\n");
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
