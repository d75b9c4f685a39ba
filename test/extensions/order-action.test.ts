/**
 * The order action (extensions/order-action, "Send to supplier") rendered with Shopify's tester
 * and the admin's fetch against the real app backend: the modal is the confirmation (what the
 * order waits for, what each choice does); Send now releases a held order and shows the outcome;
 * Hold stops an order; Cancel and Done close the modal through the host's `close`.
 */
import { fireEvent } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";
import { opCalls, prisma } from "../fulfilment/harness";
import { settleUntil } from "../helpers/extension-backend";
import { extensionUnderTest } from "./host";
import { waitForDom } from "./dom";
import { bodyText, heldOrder, paidOrder, reviewOrder, shippedOrder } from "./orders";

const SHOP = "ext-action.myshopify.com";
const { extension, h, fetchTo, reopen, deadUrl } = extensionUnderTest(
  "admin.order-details.action.render",
  "extensions/order-action",
  SHOP,
);

async function open(gid: string) {
  extension.shopify.data = { selected: [{ id: gid }] };
  await extension.render();
}

const modal = () => document.body.querySelector("s-admin-action")!;
const button = (label: string) =>
  [...modal().querySelectorAll("s-button")].find((b) => b.textContent === label);

describe("Send to supplier", () => {
  it("explains, then sends a held order on: released, placed and paid, outcome shown", async () => {
    const held = await reviewOrder(h);
    await open(held.gid);
    await waitForDom(() => expect(bodyText()).toContain("Send now places the order"));
    expect(modal().getAttribute("heading")).toBe(`Send ${held.row.shopifyOrderName} to supplier`);
    expect(bodyText()).toContain(held.row.reasonMessage!);
    expect(button("Send now")?.getAttribute("slot")).toBe("primary-action");
    expect(button("Hold")).toBeDefined();
    // Nothing happens before the merchant confirms.
    expect(await prisma.bulkRun.count()).toBe(0);
    const creates = opCalls(h, "createOrderV3");

    fireEvent.click(button("Send now")!);
    // The outcome takes the explanation's place.
    await settleUntil(h, () => expect(button("Done")).toBeDefined());
    const run = await prisma.bulkRun.findFirstOrThrow();
    expect(run.intent).toBe("release");
    const result = (run.results as Record<string, { ok: boolean; message: string }>)[held.row.id]!;
    expect(result.ok).toBe(true);
    expect(modal().querySelector("s-banner")!.getAttribute("tone")).toBe("success");
    expect(modal().querySelector("s-banner")!.textContent).toBe(result.message);
    expect(button("Send now")).toBeUndefined();
    // Released once, then placed and paid by the pipeline (the review window skipped).
    await settleUntil(h, async () => expect((await h.row(held.legacyId)).state).toBe("PAID"));
    expect(opCalls(h, "createOrderV3")).toBe(creates + 1);

    const close = vi.spyOn(extension.shopify, "close");
    fireEvent.click(button("Done")!);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it("Hold stops the order for the merchant, and Cancel closes without acting", async () => {
    const held = await heldOrder(h);
    await open(held.gid);
    await waitForDom(() => expect(button("Hold")).toBeDefined());
    const runs = await prisma.bulkRun.count();
    fireEvent.click(button("Hold")!);
    await settleUntil(h, () =>
      expect(modal().querySelector("s-banner[tone=success]")).not.toBeNull(),
    );
    expect(modal().querySelector("s-banner")!.textContent).toBe(
      "Held: the order waits here until you release it.",
    );
    expect((await h.row(held.legacyId)).reasonCode).toBe("merchant_hold");
    expect(await prisma.bulkRun.count()).toBe(runs + 1);

    reopen();
    await open(held.gid);
    await waitForDom(() => expect(button("Cancel")).toBeDefined());
    const close = vi.spyOn(extension.shopify, "close");
    fireEvent.click(button("Cancel")!);
    expect(close).toHaveBeenCalledTimes(1);
    expect(await prisma.bulkRun.count()).toBe(runs + 1);
  });

  it("a paid order, and one returned after shipping: nothing to send or hold", async () => {
    const paid = await paidOrder(h);
    await open(paid.gid);
    await waitForDom(() => expect(bodyText()).toContain("Nothing to do"));
    expect(button("Send now")).toBeUndefined();
    expect(button("Hold")).toBeUndefined();

    // Shipped, then returned: Retry fits it (the block offers it), but it is no send.
    const returned = await shippedOrder(h, "TRK-ACTION-1");
    h.svc.parcelTrouble(returned.row.svcOrderId!, 14);
    await h.settle();
    reopen();
    await open(returned.gid);
    await waitForDom(() => expect(bodyText()).toContain("Nothing to do"));
    expect(button("Send now")).toBeUndefined();
  });

  it("an order the app does not handle, and the app unreachable", async () => {
    await open("gid://shopify/Order/555000111");
    await waitForDom(() => expect(bodyText()).toContain("The app does not handle this order"));

    reopen();
    extension.fetch = fetchTo(await deadUrl());
    await open("gid://shopify/Order/555000111");
    await waitForDom(() => expect(bodyText()).toContain("The app could not be reached"));
    expect(modal().querySelector("s-banner")!.getAttribute("tone")).toBe("critical");
  });
});
