/**
 * Orders in the states the extensions show, made by the pipeline on the simulators (no row
 * written by hand): held, failed, paid, shipped with tracking.
 */
import { expect } from "vitest";
import { updateSettings } from "../../app/settings.server";
import { type Harness, prisma } from "../fulfilment/harness";

export const gidOf = (legacyId: number) => `gid://shopify/Order/${legacyId}`;

let n = 0;

/** Held: its product is not connected to the service. */
export async function heldOrder(h: Harness) {
  const placed = await h.order([{ product: h.unconnectedProduct(`Loose ${++n}`), quantity: 1 }]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("HELD");
  return { gid: gidOf(placed.legacyId), legacyId: placed.legacyId, row };
}

/** Held for the review window (an hour): a connected product, ready to go once released. */
export async function reviewOrder(h: Harness) {
  await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 60 });
  const p = await h.connectedProduct(`Reviewed ${++n}`, "15.00");
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  await updateSettings(prisma, h.shopDomain, { reviewWindowMinutes: 0 });
  const row = await h.row(placed.legacyId);
  expect(row).toMatchObject({ state: "HELD", reasonCode: "review_window" });
  return { gid: gidOf(placed.legacyId), legacyId: placed.legacyId, row };
}

/** Failed: the service refused its shipping method; the method is put right afterwards. */
export async function failedOrder(h: Harness) {
  await updateSettings(prisma, h.shopDomain, { logisticName: "Teleport" });
  const p = await h.connectedProduct(`Refused ${++n}`, "21.00");
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  await updateSettings(prisma, h.shopDomain, { logisticName: "SvcPacket Ordinary" });
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("FAILED");
  return { gid: gidOf(placed.legacyId), legacyId: placed.legacyId, row };
}

/** Paid from the balance. */
export async function paidOrder(h: Harness) {
  const p = await h.connectedProduct(`Paid ${++n}`, "12.00");
  const placed = await h.order([{ product: p, quantity: 1 }]);
  await h.settle();
  const row = await h.row(placed.legacyId);
  expect(row.state).toBe("PAID");
  return { gid: gidOf(placed.legacyId), legacyId: placed.legacyId, row };
}

/** Shipped by the warehouse, its tracking written to the shop. */
export async function shippedOrder(h: Harness, trackNumber: string) {
  const paid = await paidOrder(h);
  h.svc.ship(paid.row.svcOrderId!, { trackNumber });
  await h.settle();
  const row = await h.row(paid.legacyId);
  expect(row.state).toBe("FULFILLED");
  return { ...paid, row };
}

/** The text of the rendered extension. */
export const bodyText = () => document.body.textContent ?? "";
