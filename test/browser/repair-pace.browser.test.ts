/**
 * The Repair form at a person's pace: a merchant types an apartment number and a customs id into
 * the order page's Repair card a key every 120 ms, reads the confirmation for 2 s and confirms,
 * while the page refreshes itself every 4 s. Nothing typed may be lost to a refresh, and the
 * confirmation must say what will happen. Screenshots and axe-core at 1280 and 390 px.
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

describe("the Repair form, typed at a person's pace", () => {
  it("keeps what the merchant types through the page's refreshes and places the order with it", async () => {
    const { page } = s;
    // Chile asks for the recipient's tax id (RUT): the service intercepts the order without it.
    const [name] = await s.simOrders(1, {
      address1: "Avenida Providencia 1208",
      city: "Santiago",
      province: "Región Metropolitana",
      provinceCode: "RM",
      zip: "7500000",
      country: "Chile",
      countryCode: "CL",
      phone: "+56221234567",
    });
    await openOrder(s, name!);
    await page.locator('[data-order-state="FAILED"]').waitFor({ timeout: 120_000 });
    const card = page.locator("[data-repair-card]");
    await card.waitFor();

    const line2 = card.getByLabel("Address line 2");
    const taxId = card.getByLabel(/^Tax id/);
    await typeLikeAPerson(line2, "Depto 1204");
    // The merchant clicks outside the field (no focus in a field now) and looks away for
    // longer than one refresh, then goes on typing.
    await card.getByRole("heading", { name: "Repair" }).click();
    await pause(PAST_A_REFRESH_MS);
    expect(await line2.inputValue()).toBe("Depto 1204");
    await typeLikeAPerson(taxId, "12.345.678-5");
    await card.getByRole("heading", { name: "Repair" }).click();
    await pause(PAST_A_REFRESH_MS);
    expect(await line2.inputValue()).toBe("Depto 1204");
    expect(await taxId.inputValue()).toBe("12.345.678-5");

    await card.getByRole("button", { name: "Repair…" }).click();
    const confirm = card.getByText(/placed again|is placed with these details/);
    await confirm.waitFor();
    await s.shot("40-repair-confirm");
    // Reading the confirmation takes a person longer than one refresh of the page.
    await pause(PAST_A_REFRESH_MS);
    await expect.poll(() => card.getByText(/The shipping method .* changes to/).count()).toBe(0);
    expect(await line2.inputValue()).toBe("Depto 1204");
    expect(await taxId.inputValue()).toBe("12.345.678-5");
    await card.getByRole("button", { name: "Confirm" }).click();

    // Placed again with the corrections, then paid by the pipeline.
    await page
      .locator('[data-order-state="PAID"], [data-order-state="FULFILLED"]')
      .first()
      .waitFor({ timeout: 120_000 });
    await s.shot("41-repair-placed");
    const sent = (await (await s.svcSim("calls?op=createOrderV3", undefined, "GET")).json()) as {
      body: { shippingAddress2?: string; taxId?: string; shippingCountryCode?: string };
    }[];
    const last = sent.filter((c) => c.body.shippingCountryCode === "CL").at(-1);
    expect(last?.body.shippingAddress2).toBe("Depto 1204");
    expect(last?.body.taxId).toBe("12.345.678-5");
  });
});
