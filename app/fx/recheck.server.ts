/**
 * Rates arriving clear `no_fx_rate` holds (issue 14, causes that clear themselves): the orders
 * of every shop held for want of a rate that has just been stored go to the place step again,
 * at once. An order whose currency the webhook did not name is tried too (placing reads the
 * currency from the shop and holds it again if its rate is still missing).
 */
import type { Db } from "../db/types";
import { schedulePlace } from "../orders/schedule.server";

/** Orders re-checked per arrival; the reconciler's pass picks up any beyond. */
const MAX_ORDERS = 1000;

export async function ratesArrived(db: Db, currencies: string[], key: string): Promise<number> {
  if (currencies.length === 0) return 0;
  const held = await db.shopOrder.findMany({
    where: {
      state: "HELD",
      reasonCode: "no_fx_rate",
      OR: [{ currency: { in: currencies } }, { currency: null }],
    },
    select: { id: true, shopDomain: true },
    orderBy: { createdAt: "asc" },
    take: MAX_ORDERS,
  });
  for (const o of held) {
    await schedulePlace(db, { orderId: o.id, shopDomain: o.shopDomain, key: `fx:${key}` });
  }
  return held.length;
}
