/**
 * The order block (extensions/order-block) rendered as Shopify's admin runs it, with the admin's
 * `shopify` global from Shopify's own tester (@shopify/ui-extensions-tester) and the admin's
 * fetch (relative address, session token) talking over HTTP to the real app backend, whose
 * orders come from the pipeline on the simulators: held, failed, paid, shipped with tracking, an
 * order the app does not handle, and the app unreachable.
 */
import { fireEvent } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { prisma } from "../fulfilment/harness";
import { waitForDom as waitFor } from "./dom";
import { settleUntil } from "../helpers/extension-backend";
import { extensionUnderTest } from "./host";
import { bodyText as blockText, failedOrder, heldOrder, paidOrder, shippedOrder } from "./orders";

const SHOP = "ext-block.myshopify.com";
const { extension, h, fetchTo, deadUrl } = extensionUnderTest(
  "admin.order-details.block.render",
  "extensions/order-block",
  SHOP,
);

async function renderFor(gid: string, fetchImpl = fetchTo()) {
  extension.shopify.data = { selected: [{ id: gid }] };
  extension.fetch = fetchImpl;
  await extension.render();
}

const block = () => document.body.querySelector("s-admin-block")!;

describe("the order block", () => {
  it("shows a loading state, then a held order's reason and Release", async () => {
    const held = await heldOrder(h);
    await renderFor(held.gid);
    expect(block().querySelector("s-spinner")).not.toBeNull();
    await waitFor(() => expect(block().querySelector("s-badge")?.textContent).toBe("Held"));
    // The reason once, in its banner; the collapsed block says it in one sentence.
    expect(blockText().split(held.row.reasonMessage!)).toHaveLength(2);
    expect(block().querySelector("s-banner[tone=warning]")!.textContent).toContain(
      held.row.reasonMessage!,
    );
    expect(block().getAttribute("collapsedSummary")).toBe(`Held: ${held.row.reasonMessage}`);
    const button = block().querySelector("s-button")!;
    expect(button.textContent).toBe("Release");
    const link = block().querySelector("s-link")!;
    expect(link.getAttribute("href")).toBe(`app:/app/orders/${held.row.id}`);
  });

  it("a failed order offers Retry, and Retry places and pays it", async () => {
    const failed = await failedOrder(h);
    await renderFor(failed.gid);
    await waitFor(() => expect(block().querySelector("s-badge")?.textContent).toBe("Failed"));
    expect(block().querySelector("s-banner")!.getAttribute("tone")).toBe("critical");
    expect(blockText()).toContain(failed.row.reasonMessage!);
    expect(failed.row.reasonMessage).toMatch(/^The service refused the order/);
    const retry = block().querySelector("s-button")!;
    expect(retry.textContent).toBe("Retry");
    // A double click retries once.
    fireEvent.click(retry);
    fireEvent.click(retry);
    await settleUntil(h, () =>
      expect(block().querySelector("s-banner[tone=success]")).not.toBeNull(),
    );
    const run = await prisma.bulkRun.findFirstOrThrow({ orderBy: { createdAt: "desc" } });
    const result = (run.results as Record<string, { message: string }>)[failed.row.id]!;
    expect(block().querySelector("s-banner[tone=success]")!.textContent).toBe(result.message);
    expect(run.intent).toBe("retry");
    expect(await prisma.bulkRun.count()).toBe(1);
    await settleUntil(h, async () => expect((await h.row(failed.legacyId)).state).toBe("PAID"));
  });

  it("a paid order: supplier order, cost in USD, method; no action", async () => {
    const paid = await paidOrder(h);
    await renderFor(paid.gid);
    await waitFor(() => expect(blockText()).toContain("Paid: the supplier is preparing it."));
    expect(blockText()).toContain(`Supplier order ${paid.row.svcOrderId} · Paid, being prepared`);
    expect(blockText()).toContain(`Cost $${Number(paid.row.amount).toFixed(2)} USD`);
    expect(blockText()).toContain(paid.row.logisticName!);
    expect(block().querySelector("s-button")).toBeNull();
  });

  it("a shipped order: its tracking number links to the carrier", async () => {
    const shipped = await shippedOrder(h, "TRK-BLOCK-1");
    await renderFor(shipped.gid);
    await waitFor(() => expect(blockText()).toContain("Shipped: the tracking is on this order."));
    const link = [...block().querySelectorAll("s-link")].find(
      (l) => l.textContent === "TRK-BLOCK-1",
    );
    expect(link?.getAttribute("href")).toBe("https://track.svc.test/TRK-BLOCK-1");
    expect(blockText()).toContain("In transit");
  });

  it("a parcel returned after shipping: the problem, the carrier status, and Retry", async () => {
    const shipped = await shippedOrder(h, "TRK-BLOCK-2");
    h.svc.parcelTrouble(shipped.row.svcOrderId!, 14);
    await h.settle();
    const row = await h.row(shipped.legacyId);
    expect(row.flag).toBe("parcel_returned");
    await renderFor(shipped.gid);
    await waitFor(() => expect(blockText()).toContain("a problem after payment needs you"));
    const banner = block().querySelector("s-banner[tone=warning]")!;
    expect(banner.getAttribute("heading")).toBe("Needs you after payment");
    expect(banner.textContent).toBe(row.reasonMessage);
    expect(blockText()).toContain("Returned to sender");
    expect(block().querySelector("s-button")!.textContent).toBe("Retry");
  });

  it("an order the app does not handle gets the empty state", async () => {
    await renderFor("gid://shopify/Order/987654321");
    await waitFor(() => expect(blockText()).toContain("The app does not handle this order"));
    expect(
      block().getAttribute("collapsedSummary") ?? block().getAttribute("collapsedsummary"),
    ).toBe("Not handled by the app");
  });

  it("the app unreachable: a clear error and Try again", async () => {
    const paid = await paidOrder(h);
    await renderFor(paid.gid, fetchTo(await deadUrl()));
    await waitFor(() =>
      expect(blockText()).toContain("The app could not be reached. Check your connection"),
    );
    expect(block().querySelector("s-banner")!.getAttribute("tone")).toBe("critical");
    // Back up: Try again loads it.
    extension.fetch = fetchTo();
    fireEvent.click(block().querySelector("s-button")!);
    await waitFor(() => expect(blockText()).toContain("Paid: the supplier is preparing it."));
  });
});
