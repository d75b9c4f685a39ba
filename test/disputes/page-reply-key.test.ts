/**
 * One dispute as its page shows it (app/disputes/page.server.ts) never shows a reply's lock row
 * (`key:`, kept by app/disputes/reply-cancel.server.ts so a form key sends once): only messages.
 */
import { describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { REPLY_KEY } from "../../app/disputes/reply-cancel.server";
import { disputeDetail } from "../../app/disputes/page.server";

const SHOP = "disputes-page-key.myshopify.com";

describe("disputeDetail", () => {
  it("shows the messages and the stand-in being sent, not the reply's lock row", async () => {
    const t = Date.UTC(2026, 5, 1);
    const d = await prisma.dispute.create({
      data: {
        shopDomain: SHOP,
        svcAccountId: "acct",
        svcDisputeId: "710001",
        status: "Pending processing",
        svcCreatedAt: new Date(t),
        messages: {
          create: [
            { messageId: "M1", fromSupport: false, at: new Date(t + 1000), text: "Broken." },
            { messageId: `${REPLY_KEY}abc`, fromSupport: false, at: new Date(t + 2000), text: "" },
            { messageId: "pending:abc", fromSupport: false, at: new Date(t + 2000), text: "Box." },
          ],
        },
      },
    });
    const shown = await disputeDetail(prisma, SHOP, d.id);
    expect(REPLY_KEY).toBe("key:");
    expect(shown!.messages.map((m) => [m.text, m.sending])).toEqual([
      ["Broken.", false],
      ["Box.", true],
    ]);
  });
});
