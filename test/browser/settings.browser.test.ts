/**
 * The settings page at a person's pace (issue 35, "Unsaved settings are lost"): for each of its
 * five forms a merchant types a change a key every 120 ms, looks away longer than a refresh
 * while the page reloads its data, sees the one save bar, tries to leave by the navigation and
 * is asked (in view, wherever the page is scrolled), stays, saves: the saved value is there
 * after a reload. Discard asks first and restores; a refused form keeps what was typed, with
 * its field's error, while the valid ones are saved. Screenshots and axe-core at 1280 and 390.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PAST_A_REFRESH_MS,
  SHOTS,
  type Sandbox,
  pause,
  setUpDemoShop,
  startSandbox,
  typeLikeAPerson,
} from "./harness";

let s: Sandbox;
let page: Page;

beforeAll(async () => {
  s = await startSandbox();
  page = s.page;
  // The page's own errors, for whoever reads a failure.
  page.on("pageerror", (e) => console.log("page error:", e.message));
  // Connected and matched: the shipping rules' methods are checked against the service's
  // quotes for the matched products.
  await setUpDemoShop(s);
}, 300_000);

afterAll(async () => {
  await s?.stop();
});

async function openSettings() {
  await page.getByRole("link", { name: "Settings" }).first().click();
  await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
}

const card = (intent: string) => page.locator(`[data-settings-card="${intent}"]`);
const bar = () => page.locator("[data-save-bar]");

/** The element's box lies inside the viewport (not somewhere down the page). */
async function expectInView(l: Locator) {
  const box = await l.boundingBox();
  const vp = page.viewportSize()!;
  expect(box, "the element has a box").not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(vp.height);
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(vp.width);
}

/** The page reloads its data as it does after any post (here: the webhooks registered again). */
async function reloadPageData() {
  await page.getByRole("button", { name: "Register again" }).click();
  await page.getByText("Webhooks registered").first().waitFor();
}

/**
 * What the merchant sees (the viewport, not the whole page) at 1280 and 390 px, into
 * `<name>-view.png` and `<name>-view-390.png`; `inView` must be in view at both widths.
 */
async function viewShot(name: string, inView?: Locator) {
  for (const [suffix, width] of [
    ["", 1280],
    ["-390", 390],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    if (inView) await expectInView(inView);
    await page.screenshot({ path: `${SHOTS}/${name}-view${suffix}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

interface FormCase {
  intent: string;
  title: string;
  field: (c: Locator) => Locator;
  value: string;
  saved: RegExp;
  /** The value the field shows after saving and reloading (the server may write it its way). */
  shown: RegExp;
}

const FORMS: FormCase[] = [
  {
    intent: "save-settings",
    title: "Orders and payment",
    field: (c) => c.getByLabel("Review window (minutes)"),
    value: "25",
    saved: /^Settings saved/,
    shown: /^25$/,
  },
  {
    intent: "save-shipping",
    title: "Shipping",
    field: (c) => c.getByLabel("Price cap (USD)").first(),
    value: "30",
    saved: /^Shipping rules saved/,
    shown: /^30(\.00)?$/,
  },
  {
    intent: "save-fx",
    title: "Exchange rates",
    field: (c) => c.getByLabel("Your own rates (USD for one unit)"),
    value: "EUR 1.0812",
    saved: /^Exchange rates saved/,
    shown: /^EUR 1\.0812$/,
  },
  {
    intent: "save-pricing",
    title: "Pricing and stock",
    field: (c) => c.getByLabel("Multiplier"),
    value: "2.75",
    saved: /^Pricing saved/,
    shown: /^2\.75$/,
  },
  {
    intent: "save-notifications",
    title: "Notifications",
    field: (c) => c.getByLabel("Send to"),
    value: "merchant@example.com",
    saved: /^Notification settings saved/,
    shown: /^merchant@example\.com$/,
  },
];

describe("each settings form, typed at a person's pace", () => {
  for (const f of FORMS) {
    it(`${f.title}: kept through reloads, the save bar, a leave prompt in view, saved`, async () => {
      await openSettings();
      const c = card(f.intent);
      const field = f.field(c);
      await field.scrollIntoViewIfNeeded();
      await typeLikeAPerson(field, f.value);
      // The merchant clicks outside the field and looks away longer than a refresh; the page
      // reloads its data meanwhile (another card's post).
      await page.getByRole("heading", { name: "Settings", level: 1 }).click();
      await pause(PAST_A_REFRESH_MS);
      await reloadPageData();
      expect(await field.inputValue()).toBe(f.value);

      // One bar for the page, naming the changed form, in view where the merchant is.
      await field.scrollIntoViewIfNeeded();
      await bar().waitFor();
      expect(await bar().innerText()).toContain(f.title);
      await expectInView(bar());
      // Closing the tab would ask too.
      expect(
        await page.evaluate(() => {
          const e = new Event("beforeunload", { cancelable: true });
          window.dispatchEvent(e);
          return e.defaultPrevented;
        }),
      ).toBe(true);

      // Leaving by the navigation asks first, in view.
      await page.getByRole("link", { name: "Orders" }).first().click();
      const prompt = page.getByRole("alertdialog", { name: "Leave without saving?" });
      await prompt.waitFor();
      await expectInView(prompt);
      await viewShot(`50-settings-leave-${f.intent}`, prompt);
      await s.shot(`50-settings-leave-${f.intent}`);
      await pause();
      await prompt.getByRole("button", { name: "Stay" }).click();
      await prompt.waitFor({ state: "detached" });
      expect(new URL(page.url()).pathname).toBe("/app/settings");
      expect(await field.inputValue()).toBe(f.value);
      // Scrolled down to the form, far from the navigation, the question is still in view
      // (the link followed from the keyboard, without scrolling); Escape stays.
      await field.scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
      await page.evaluate(() =>
        document.querySelector<HTMLAnchorElement>('nav a[href="/app/orders"]')!.click(),
      );
      await prompt.waitFor();
      await expectInView(prompt);
      await viewShot(`50-settings-leave-scrolled-${f.intent}`, prompt);
      await page.keyboard.press("Escape");
      await prompt.waitFor({ state: "detached" });
      expect(new URL(page.url()).pathname).toBe("/app/settings");

      // Save: the toast says what was saved, the bar goes, the value is saved.
      await bar().getByRole("button", { name: "Save" }).click();
      await page.getByRole("status").getByText(f.saved).waitFor();
      await bar().waitFor({ state: "detached" });
      await page.reload();
      await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
      expect(await f.field(card(f.intent)).inputValue()).toMatch(f.shown);
    }, 180_000);
  }

  it("Discard asks first, Keep editing keeps, Discard restores what is saved", async () => {
    await openSettings();
    const field = card("save-pricing").getByLabel(
      "Main market (shipping quotes on the Products page)",
    );
    const saved = await field.inputValue();
    await typeLikeAPerson(field, "JP");
    await bar().waitFor();
    await viewShot("51-settings-save-bar", bar());
    await s.shot("51-settings-save-bar");
    await bar().getByRole("button", { name: "Discard" }).click();
    const ask = page.getByRole("alertdialog", { name: "Discard all unsaved changes?" });
    await ask.waitFor();
    await expectInView(ask);
    await viewShot("52-settings-discard-confirm", ask);
    await s.shot("52-settings-discard-confirm");
    await pause();
    await ask.getByRole("button", { name: "Keep editing" }).click();
    await ask.waitFor({ state: "detached" });
    expect(await field.inputValue()).toBe("JP");
    await bar().getByRole("button", { name: "Discard" }).click();
    await pause();
    await ask.getByRole("button", { name: "Discard changes" }).click();
    await bar().waitFor({ state: "detached" });
    expect(await field.inputValue()).toBe(saved);
    // Nothing to save, nothing to ask: leaving goes straight away.
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.waitForURL(/\/app\/orders/);
  }, 120_000);

  it("saves two forms at once; a refused one keeps what was typed, by its field", async () => {
    await openSettings();
    const multiplier = card("save-pricing").getByLabel("Multiplier");
    const sendTo = card("save-notifications").getByLabel("Send to");
    await typeLikeAPerson(multiplier, "3.5");
    await typeLikeAPerson(sendTo, "not-an-address");
    await page.getByRole("heading", { name: "Settings", level: 1 }).click();
    await bar().waitFor();
    expect(await bar().innerText()).toMatch(/Pricing and stock and Notifications/);
    await bar().getByRole("button", { name: "Save" }).click();
    await page
      .getByRole("status")
      .getByText(/^Pricing saved/)
      .waitFor();
    await page.getByText("Not saved: Notifications").waitFor();
    await card("save-notifications")
      .getByText("Enter email addresses like name@example.com, separated by commas")
      .waitFor();
    // The refused field has the focus, in view; what was typed is still there.
    await expect.poll(() => sendTo.evaluate((el) => el === document.activeElement)).toBe(true);
    await expectInView(sendTo);
    expect(await sendTo.inputValue()).toBe("not-an-address");
    expect(await multiplier.inputValue()).toBe("3.5");
    // Once the page's data has reloaded, the bar names only the form still to save.
    await expect.poll(() => bar().innerText(), { timeout: 15_000 }).not.toContain("Pricing");
    expect(await bar().innerText()).toContain("Notifications");
    await viewShot("53-settings-refused");
    await s.shot("53-settings-refused");
    await typeLikeAPerson(sendTo, "owner@example.com");
    // A double click on Save sends one save.
    const saves: string[] = [];
    const onRequest = (r: { method(): string; postData(): string | null }) => {
      if (r.method() === "POST" && r.postData()?.includes("intent=save-all")) saves.push("save");
    };
    page.on("request", onRequest);
    await bar().getByRole("button", { name: "Save" }).dblclick();
    await page
      .getByRole("status")
      .getByText(/^Notification settings saved/)
      .waitFor();
    await bar().waitFor({ state: "detached" });
    page.off("request", onRequest);
    expect(saves).toHaveLength(1);
    await page.reload();
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    expect(await card("save-notifications").getByLabel("Send to").inputValue()).toBe(
      "owner@example.com",
    );
    expect(await card("save-pricing").getByLabel("Multiplier").inputValue()).toBe("3.5");
  }, 120_000);
});
