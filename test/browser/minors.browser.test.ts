/**
 * The minor findings of issue 35 in Chromium, at a person's pace (a key every 120 ms, 2 s to
 * read before acting): the bare address, an inline confirmation by keyboard, the product picker,
 * the dispute form's quantities, files and addresses, and a page's skeleton while it is read.
 * Screenshots and axe-core (critical, serious and moderate) at 1280 and 390 px.
 */
import type { Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG_1PX } from "../helpers/file-server";
import {
  type Sandbox,
  openOrder,
  pause,
  setUpDemoShop,
  startSandbox,
  typeLikeAPerson,
} from "./harness";

let s: Sandbox;

beforeAll(async () => {
  s = await startSandbox();
  await setUpDemoShop(s);
});

afterAll(async () => {
  await s?.stop();
});

/** The visible text of the element that has the focus. */
const focused = () =>
  s.page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? "");

describe("the minor findings, at a person's pace", () => {
  it("opens the app at the bare address, never Shopify's login form", async () => {
    const { page, info } = s;
    await page.goto(`${info.url}/`);
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app");
    expect(await page.getByRole("button", { name: "Log in" }).count()).toBe(0);
  });

  it("an inline confirmation takes the focus, closes on Escape and gives the focus back", async () => {
    const { page } = s;
    await page.getByRole("link", { name: "Settings" }).first().click();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    const trigger = page.getByRole("button", { name: "Disconnect", exact: true });
    await trigger.click();
    const box = page.getByRole("group", { name: "Disconnect from the service?" });
    await box.waitFor();
    // The focus is in the confirmation, on the button that keeps things as they are.
    expect(await focused()).toBe("Go back");
    expect(await box.getByRole("button", { name: "Cancel" }).count()).toBe(0);
    await s.shot("50-confirm-open");
    await pause();
    await page.keyboard.press("Escape");
    await box.waitFor({ state: "detached" });
    expect(await focused()).toBe("Disconnect");
    // By keyboard again: Enter opens it, Enter on "Go back" closes it; nothing was sent.
    await page.keyboard.press("Enter");
    await box.waitFor();
    expect(await focused()).toBe("Go back");
    await pause();
    await page.keyboard.press("Enter");
    await box.waitFor({ state: "detached" });
    expect(await focused()).toBe("Disconnect");
    // Still connected: the account was kept.
    await pause();
    expect(await trigger.isVisible()).toBe(true);
    expect(await page.getByLabel("API key").count()).toBe(0);
  });

  it("the product picker starts empty and closes after Connect", async () => {
    const { page } = s;
    await page.getByRole("link", { name: "Products" }).first().click();
    await page.getByRole("heading", { name: "Products", level: 1 }).waitFor();
    await page.getByLabel("Show").selectOption("unconnected");
    await page.getByRole("button", { name: "Search", exact: true }).first().click();
    await page.waitForURL(/show=unconnected/);
    await page.getByRole("button", { name: "Choose…" }).first().click();
    const heading = page.getByRole("heading", { name: /^Choose a catalog variant for / });
    await heading.waitFor();
    const search = page.getByLabel("Search the catalog");
    expect(await search.inputValue()).toBe("");
    await page.getByText("Search the catalog by a product's name or SKU").waitFor();
    await typeLikeAPerson(search, "Mug");
    await search.press("Enter");
    await page.getByRole("button", { name: "Variants" }).first().waitFor();
    await s.shot("51-picker-results");
    await page.getByRole("button", { name: "Variants" }).first().click();
    const connect = page.getByRole("button", { name: "Connect", exact: true }).first();
    await connect.waitFor();
    await pause();
    await connect.click();
    // Connected: the picker closes and says so.
    await heading.waitFor({ state: "detached", timeout: 30_000 });
    await page.getByText("Variant connected").first().waitFor();
    await s.shot("52-picker-connected");
  });

  it("the dispute form says a quantity is more than ordered, lists chosen files with their errors and names a bad address whole", async () => {
    const { page } = s;
    const [name] = await s.simOrders(1);
    await openOrder(s, name!);
    await page.locator('[data-order-state="FULFILLED"]').waitFor({ timeout: 120_000 });
    await page.getByRole("link", { name: "Open a dispute" }).click();
    await page.getByRole("heading", { name: /^Open a dispute on #\d+/ }).waitFor();

    const quantity = page.getByLabel(/^Quantity of /).first();
    await typeLikeAPerson(quantity, "99");
    await page.getByText(/^More than the \d+ ordered$/).waitFor();
    await page.getByLabel("Reason").selectOption({ index: 1 });
    await typeLikeAPerson(page.getByLabel("Describe the problem"), "The mug arrived cracked.");
    await page.getByLabel("Photos or videos", { exact: true }).setInputFiles([
      { name: "cracked.png", mimeType: "image/png", buffer: PNG_1PX },
      { name: "notes.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4\n") },
    ]);
    const files = page.getByRole("list", { name: "Chosen files" });
    await files.getByText("cracked.png").waitFor();
    await files.getByText(/ready to send/).waitFor();
    await files.getByText(/^Not a photo .* it will not be sent\.$/).waitFor();
    await s.shot("53-dispute-files");
    await pause();
    await page.getByRole("button", { name: "Open dispute" }).click();
    await page
      .getByText(/: 99 is more than the \d+ ordered; at most \d+ can be disputed\./)
      .waitFor();
    expect(await page.getByText("Choose at least one line").count()).toBe(0);

    // The quantity corrected, an address with spaces: named whole, nothing opened.
    await typeLikeAPerson(quantity, "1");
    await typeLikeAPerson(
      page.getByLabel("Or addresses of photos or videos already online"),
      "my photo of the box.jpg",
    );
    await pause();
    await page.getByRole("button", { name: "Open dispute" }).click();
    await page
      .getByText('"my photo of the box.jpg" is not a web address', { exact: false })
      .first()
      .waitFor();
    // The chosen files are still listed after the refusal; the pdf can be removed.
    await files.getByText("cracked.png").waitFor();
    await files.getByRole("button", { name: "Remove notes.pdf" }).click();
    await files.getByText("notes.pdf").waitFor({ state: "detached" });
    await s.shot("54-dispute-refused");
    const creates = (await (await s.svcSim("calls?op=disputeCreate", undefined, "GET")).json()) as {
      code?: number;
    }[];
    expect(creates.filter((c) => c.code === 200)).toHaveLength(0);
  });

  it("a page being opened shows its skeleton, and a service that does not answer holds no page", async () => {
    const { page } = s;
    // Hold the Inventory page's data until the skeleton was seen (and photographed).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const hold = async (route: Route) => {
      await released;
      // After a failure the route may be gone already: nothing to continue then.
      await route.continue().catch(() => undefined);
    };
    await page.route(/\/app\/inventory\?.*_data=/, hold);
    // Every service call is held far longer than a page may wait.
    expect((await s.svcSim("faults", { rateTimeout: 1, timeoutMs: 60_000 })).status).toBe(200);
    try {
      await page.getByRole("link", { name: "Inventory" }).first().click();
      await page.locator("[data-page-skeleton]").waitFor();
      await page.getByRole("status").filter({ hasText: "Opening Inventory…" }).waitFor({
        state: "attached",
      });
      await s.shot("55-inventory-skeleton");
      release();
      await page.getByRole("heading", { name: "Inventory", level: 1 }).waitFor();
      await page.getByText(/did not answer within a few seconds/).waitFor();
      await page.locator("[data-page-skeleton]").waitFor({ state: "detached" });
      await s.shot("56-inventory-outage");
    } finally {
      release();
      await page.unroute(/\/app\/inventory\?.*_data=/, hold);
      await s.svcSim("faults", {});
    }
  });
});
