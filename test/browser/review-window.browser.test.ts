/**
 * A review-window order at a person's pace (issue 35): with a review window set in Settings, a
 * new order reads "Scheduled · places at HH:MM" in the shop's time, with Place now and no
 * alert, on its page, the orders list and the dashboard; shortening the window in Settings moves
 * its time earlier; Place now sends it. Typed a key every 120 ms, read for longer than one
 * refresh. Screenshots and axe-core at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PAST_A_REFRESH_MS,
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

/** Sets the review window in Settings as a person does: types it, reads, saves. */
async function setReviewWindow(minutes: number) {
  const { page } = s;
  await page.getByRole("link", { name: "Settings" }).first().click();
  await page.getByRole("heading", { name: "Settings" }).waitFor();
  const field = page.getByLabel("Review window (minutes)");
  // A person reads the page before typing into it.
  await pause();
  await typeLikeAPerson(field, String(minutes));
  expect(await field.inputValue()).toBe(String(minutes));
  // The page's one save bar saves it; the bar goes once it is saved.
  const bar = page.locator("[data-save-bar]");
  await bar.waitFor();
  await bar.getByRole("button", { name: "Save", exact: true }).click();
  await page
    .getByText(/Settings saved/)
    .first()
    .waitFor();
  await bar.waitFor({ state: "detached" });
  await expect.poll(() => field.inputValue()).toBe(String(minutes));
}

/** The scheduled time the order page shows (its ISO time, in a data attribute). */
async function scheduledAt(): Promise<number> {
  const at = await s.page.locator("[data-scheduled]").getAttribute("data-scheduled");
  expect(at).toBeTruthy();
  return Date.parse(at!);
}

/** The demo shop's time zone (the shop simulator's, from Shopify's `shop.ianaTimezone`). */
const ZONE = "America/New_York";
const hhmm = (ms: number) =>
  new Intl.DateTimeFormat("en-GB", {
    timeZone: ZONE,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(new Date(ms));
const dayOf = (ms: number) =>
  new Intl.DateTimeFormat("en-GB", { timeZone: ZONE, day: "numeric", month: "short" }).format(
    new Date(ms),
  );
/**
 * "places at 00:27", or "places at 29 Nov, 00:27" when the order came in on the shop's day
 * before (an order received at 23:57 with an hour's window): what the page says of a time.
 */
const placesAt = (ms: number, receivedMs: number) =>
  `places at ${dayOf(ms) === dayOf(receivedMs) ? "" : `${dayOf(ms)}, `}${hhmm(ms)}`;

describe("an order in the review window", () => {
  it("is scheduled, not a problem; a shorter window moves it; Place now sends it", async () => {
    const { page } = s;
    await setReviewWindow(60);
    const [name] = await s.simOrders(1);
    await openOrder(s, name!);

    // Scheduled, with its time, Place now, and no alert.
    const scheduled = page.locator("[data-scheduled]");
    await scheduled.waitFor({ timeout: 60_000 });
    const first = await scheduledAt();
    const received = first - 60 * 60_000;
    await expect
      .poll(() => scheduled.innerText())
      .toContain(`Scheduled · ${placesAt(first, received)}`);
    // Read for longer than one refresh: it stays as it is.
    await pause(PAST_A_REFRESH_MS);
    expect(await scheduled.innerText()).toContain(placesAt(first, received));
    expect(await page.getByText("Scheduled", { exact: true }).count()).toBeGreaterThan(0);
    expect(await page.getByText("Held", { exact: true }).count()).toBe(0);
    expect(await page.getByText("Needs attention", { exact: true }).count()).toBe(0);
    expect(await page.locator(".Polaris-Banner").count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Retry/ }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Release/ }).count()).toBe(0);
    const placeNow = page.getByRole("button", { name: /^Place now/ });
    expect(await placeNow.count()).toBe(1);
    // Times are the shop's, and the page says which zone.
    expect(await scheduled.innerText()).toContain("America/New York");
    await s.shot("50-review-window-order");

    // The orders list says the same, in its Why column.
    await page.getByRole("link", { name: "Orders" }).first().click();
    await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
    await page
      .getByText(`Scheduled · ${placesAt(first, received)}`)
      .first()
      .waitFor();
    await page.getByRole("link", { name: /^Needs attention \(0\)$/ }).waitFor();
    // The views' tabs move with the arrow keys (and Home, End), as tabs do.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("data-view"));
    await page.locator('a[data-view="all"]').focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(focused).toBe("attention");
    await page.keyboard.press("End");
    await expect.poll(focused).toBe("cancelled");
    await page.keyboard.press("ArrowRight");
    await expect.poll(focused).toBe("all");
    await s.shot("51-review-window-list");

    // The dashboard lists no problem for it.
    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await page.getByRole("heading", { name: "Latest problems" }).waitFor();
    const problems = page
      .getByRole("heading", { name: "Latest problems" })
      .locator("xpath=ancestor::div[contains(@class, 'Polaris-BlockStack')][1]");
    expect(await problems.innerText()).not.toContain(name!);
    await s.shot("52-review-window-dashboard");

    // A shorter window in Settings brings it forward by the difference.
    await setReviewWindow(20);
    await openOrder(s, name!);
    await scheduled.waitFor();
    const moved = await scheduledAt();
    // Received + 20 minutes instead of + 60 (to the second: the row's time and the window's
    // start are a few milliseconds apart).
    expect(Math.abs(first - moved - 40 * 60_000)).toBeLessThan(5_000);
    await expect.poll(() => scheduled.innerText()).toContain(placesAt(moved, received));

    // Place now: read the button, press it; it is sent and paid (sandbox: nothing charged).
    await pause();
    await placeNow.click();
    await page
      .getByText(/being placed now/)
      .first()
      .waitFor();
    expect(await page.getByText(/Done: the order is now/).count()).toBe(0);
    await page
      .locator('[data-order-state="PAID"], [data-order-state="FULFILLED"]')
      .first()
      .waitFor({ timeout: 120_000 });
    expect(await page.locator("[data-scheduled]").count()).toBe(0);
    await s.shot("53-review-window-placed");
  });
});
