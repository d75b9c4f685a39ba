/**
 * The bulk action on Shopify's order list (extensions/order-bulk-action) rendered with Shopify's
 * tester and the admin's fetch against the real app backend: it counts what the selection holds,
 * runs an action on the orders it fits only, and lists each order's result.
 */
import { fireEvent } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { prisma } from "../fulfilment/harness";
import { settleUntil } from "../helpers/extension-backend";
import { extensionUnderTest } from "./host";
import { waitForDom } from "./dom";
import { bodyText, failedOrder, paidOrder, reviewOrder } from "./orders";

const SHOP = "ext-bulk.myshopify.com";
const { extension, h, reopen } = extensionUnderTest(
  "admin.order-index.selection-action.render",
  "extensions/order-bulk-action",
  SHOP,
);

const modal = () => document.body.querySelector("s-admin-action")!;
const button = (prefix: string) =>
  [...modal().querySelectorAll("s-button")].find((b) => b.textContent?.startsWith(prefix));
const items = () => [...modal().querySelectorAll("s-list-item")].map((i) => i.textContent);

describe("the bulk action", () => {
  it("counts the selection, sends the held ones only, and lists each result", async () => {
    const review = await reviewOrder(h);
    const failed = await failedOrder(h);
    const paid = await paidOrder(h);
    const unknown = "gid://shopify/Order/777000111";
    extension.shopify.data = {
      selected: [review.gid, failed.gid, paid.gid, unknown].map((id) => ({ id })),
    };
    await extension.render();
    await waitForDom(() => expect(items()).toContain("1 held"));
    expect(modal().getAttribute("heading")).toBe("4 orders selected");
    expect(items()).toEqual([
      "1 held",
      "1 failed or with a problem",
      "2 not yet paid",
      "1 not handled by the app (left alone)",
    ]);
    expect(button("Send held")!.textContent).toBe("Send held (1)");
    expect(button("Retry failed")!.textContent).toBe("Retry failed (1)");
    expect(button("Hold")!.textContent).toBe("Hold (2)");

    fireEvent.click(button("Send held")!);
    await settleUntil(h, () => expect(bodyText()).toContain("Send held: 1 done."));
    const run = await prisma.bulkRun.findFirstOrThrow({ where: { shopDomain: SHOP } });
    expect(run.intent).toBe("release");
    expect(run.orderIds).toEqual([review.row.id]);
    const result = (run.results as Record<string, { message: string }>)[review.row.id]!;
    expect(items()).toEqual([`${review.row.shopifyOrderName}: ${result.message}`]);
    expect(button("Done")).toBeDefined();
    await settleUntil(h, async () => expect((await h.row(review.legacyId)).state).toBe("PAID"));
    // The others were left as they were.
    expect((await h.row(failed.legacyId)).state).toBe("FAILED");
    expect((await h.row(paid.legacyId)).paymentBatchId).toBe(paid.row.paymentBatchId);
  });

  it("retries the failed one; a selection of nothing it handles offers nothing", async () => {
    const failed = await failedOrder(h);
    extension.shopify.data = { selected: [{ id: failed.gid }] };
    await extension.render();
    await waitForDom(() => expect(button("Retry failed")?.textContent).toBe("Retry failed (1)"));
    expect(modal().getAttribute("heading")).toBe("1 order selected");
    fireEvent.click(button("Retry failed")!);
    await settleUntil(h, () => expect(bodyText()).toContain("Retry failed: 1 done."));
    await settleUntil(h, async () => expect((await h.row(failed.legacyId)).state).toBe("PAID"));

    reopen();
    extension.shopify.data = { selected: [{ id: "gid://shopify/Order/777000222" }] };
    await extension.render();
    await waitForDom(() => expect(items()).toContain("1 not handled by the app (left alone)"));
    for (const label of ["Send held", "Retry failed", "Hold"]) {
      expect(button(label)!.hasAttribute("disabled")).toBe(true);
    }
  });
});
