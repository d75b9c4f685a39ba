/**
 * Sandbox orders (issue 14): nothing ships, so once a sandbox order is paid the app gives it a
 * test tracking number through the service's sandbox/updateTrackNumber; the service then tells
 * of the parcel as for a real one (LOGISTIC), and tracking goes to the shop as usual. Only ever
 * for sandbox orders; the number is derived from the order, so a retry sends the same.
 */
import { SvcError } from "../svc/errors";
import type { FulfilmentDeps } from "../orders/deps.server";
import { PAID_STATES } from "../orders/states";
import { scheduleTrack } from "../orders/schedule.server";
import { addTimeline, errorFields } from "../orders/timeline.server";

export const sandboxTrackNumber = (orderNumber: string) => `SBX-${orderNumber}`.slice(0, 64);

export async function sandboxTrack(
  deps: FulfilmentDeps,
  orderId: string,
): Promise<{ skipped?: string; trackNumber?: string }> {
  const db = deps.prisma;
  const o = await db.shopOrder.findUnique({ where: { id: orderId } });
  if (!o) return { skipped: "order gone" };
  if (!o.isSandbox) return { skipped: "not a sandbox order" };
  if (!PAID_STATES.includes(o.state as never) || !o.svcOrderId || !o.svcAccountId) {
    return { skipped: `state ${o.state}` };
  }
  const trackNumber = sandboxTrackNumber(o.orderNumber);
  const client = await deps.svcFor(o.svcAccountId);
  try {
    await client.logistics.updateSandboxTrackNumber(o.svcOrderId, trackNumber);
  } catch (error) {
    if (error instanceof SvcError && !error.retryable && !error.outcomeUnknown) {
      const f = errorFields(error);
      await addTimeline(db, o.id, {
        step: "sandbox",
        outcome: "error",
        errorCode: f.errorCode,
        requestId: f.requestId,
        message: `The service refused the sandbox tracking number (${f.message}).`,
      });
      return { skipped: f.message };
    }
    throw error;
  }
  await addTimeline(db, o.id, {
    step: "sandbox",
    outcome: "ok",
    message: `Sandbox: test tracking number ${trackNumber} set at the service.`,
  });
  // The LOGISTIC webhook tells too; this fetch makes sure if it is lost.
  await scheduleTrack(db, {
    orderId: o.id,
    shopDomain: o.shopDomain,
    key: `sandbox:${trackNumber}`,
  });
  return { trackNumber };
}
