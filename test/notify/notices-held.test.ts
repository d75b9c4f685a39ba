/**
 * A held order with no reason code (app/notify/notices.server.ts) is a problem the merchant
 * hears about: a filter that leaves out the outage and review-window holds must not leave out
 * the holds whose reasonCode is NULL (SQL's NOT IN drops NULLs). The rest is in notices.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { detectNotices } from "../../app/notify/detect.server";
import { settingsSchema } from "../../app/settings.server";

const SHOP = "notices-held-null.myshopify.com";
const MIN = 60_000;

beforeAll(async () => {
  await prisma.shop.create({ data: { domain: SHOP } });
});

describe("detectNotices: held orders", () => {
  it("tells of a held order without a reason code, not of an outage or a review wait", async () => {
    const now = Date.now();
    let n = 0;
    const held = (reasonCode: string | null, reasonMessage: string | null = null) =>
      prisma.shopOrder.create({
        data: {
          shopDomain: SHOP,
          shopifyOrderId: String(7100 + ++n),
          shopifyOrderName: `#${7100 + n}`,
          orderNumber: `held-null-${n}`,
          state: "HELD",
          reasonCode,
          reasonMessage,
          updatedAt: new Date(now - 2 * 60 * MIN),
        },
      });
    const bare = await held(null);
    const said = await held(null, "Held by hand");
    await held("service_unavailable");
    await held("review_window");
    const settings = settingsSchema.parse({
      notifyEmails: "owner@example.com",
      notifyHeldAfterMinutes: 60,
      notifyOutage: false,
    });
    const probe = async () => ({ amount: "1000.00", outage: false });
    expect(await detectNotices(prisma, SHOP, settings, probe, now)).toEqual({ created: 2 });
    const told = await prisma.notice.findMany({
      where: { shopDomain: SHOP },
      orderBy: { key: "asc" },
      select: { kind: true, key: true, text: true, orderId: true },
    });
    expect(told).toEqual(
      [
        {
          kind: "failures",
          key: `held:${bare.id}:`,
          text: `${bare.shopifyOrderName} is held: see its timeline`,
          orderId: bare.id,
        },
        {
          kind: "failures",
          key: `held:${said.id}:`,
          text: `${said.shopifyOrderName} is held: Held by hand`,
          orderId: said.id,
        },
      ].sort((x, y) => (x.key < y.key ? -1 : 1)),
    );
  });
});
