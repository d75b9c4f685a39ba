/**
 * A reconnect, at a person's pace (issue 35): connect, place and pay an order, disconnect,
 * connect another service account, disconnect, reconnect the first (typing its key a key every
 * 120 ms). The order paid before the reconnect says what to do while its account is away, then
 * follows its account back, ships and shows its tracking. Screenshots and axe-core at 1280 and
 * 390 px.
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

async function openSettings() {
  const { page } = s;
  await page.getByRole("link", { name: "Settings" }).first().click();
  await page.getByRole("heading", { name: "Settings" }).waitFor();
}

/** Disconnect, reading the question before confirming it. */
async function disconnect() {
  const { page } = s;
  await openSettings();
  await page.getByRole("button", { name: "Disconnect" }).click();
  await page.getByText("Disconnect from the service?").waitFor();
  await pause();
  await page.getByRole("button", { name: /^Confirm/ }).click();
  await page.getByLabel("API key").waitFor();
}

/** Types the key at a person's pace and connects. */
async function connectWith(apiKey: string) {
  const { page } = s;
  await openSettings();
  await typeLikeAPerson(page.getByLabel("API key"), apiKey);
  await pause();
  await page.getByRole("button", { name: "Connect with API key" }).click();
  await page.getByText("Connected to the service").waitFor({ timeout: 60_000 });
}

describe("a reconnect", () => {
  it("brings the tracking of an order paid before it", async () => {
    const { page, info } = s;
    // Real (not sandbox) orders: no test tracking number is set for them after payment.
    await openSettings();
    await page.getByRole("button", { name: "Turn sandbox off" }).click();
    await pause();
    await page.getByRole("button", { name: /^Confirm/ }).click();
    await page.getByText(/Sandbox orders are\s*off/).waitFor();

    const [name] = await s.simOrders(1);
    await openOrder(s, name!);
    await page.locator('[data-order-state="PAID"]').waitFor({ timeout: 120_000 });

    await disconnect();
    await openOrder(s, name!);
    // Away: the order says what happened and what to do, in plain words.
    await page
      .getByText(/connect that service account again/)
      .first()
      .waitFor();
    await s.shot("60-reconnect-order-away");
    // The dashboard lists it among the problems, with the same sentence.
    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await page
      .getByText(/connect that service account again/)
      .first()
      .waitFor();
    expect(await page.getByText("account_disconnected").count()).toBe(0);
    await s.shot("60-reconnect-dashboard-away");

    const other = (await (await s.svcSim("accounts", { balance: "20.00" })).json()) as {
      apiKey: string;
    };
    await connectWith(other.apiKey);
    await openOrder(s, name!);
    await page
      .getByText(/connect that service account again/)
      .first()
      .waitFor();

    await disconnect();
    // The service allows one token request per 5 minutes per account: that long has passed.
    await s.svcSim("clock", { advance: 6 * 60_000 });
    await connectWith(info.apiKey);
    await page.getByText("Registered", { exact: true }).waitFor();
    await s.shot("61-reconnect-settings");

    await openOrder(s, name!);
    await pause(PAST_A_REFRESH_MS);
    expect(await page.getByText(/connect that service account again/).count()).toBe(0);
    await page.getByRole("button", { name: "Ship it" }).click();
    const tracking = page.locator("[data-tracking]:not([data-tracking=''])").first();
    await tracking.waitFor({ timeout: 90_000 });
    expect(await tracking.getAttribute("data-tracking")).not.toMatch(/^SBX-/);
    await s.shot("62-reconnect-order-tracked");
  });
});
