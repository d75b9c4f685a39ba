/**
 * The daily prune: finished jobs go after 7 days, webhook events after 30, notification notices
 * and digests after 90; nothing still to do goes (a running job, a notice waiting for its
 * digest, a digest not sent yet that may still be sent).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { handlers } from "../../app/worker/registry.server";
import { enqueue } from "../../app/jobs/enqueue.server";
import { Worker } from "../../app/worker/worker.server";

const DAY = 86400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
const SHOP = "prune.myshopify.com";

beforeEach(async () => {
  await prisma.job.deleteMany();
  await prisma.webhookEvent.deleteMany();
  await prisma.notice.deleteMany();
  await prisma.noticeDigest.deleteMany();
});

describe("jobs.prune", () => {
  it("removes what is old and done, and keeps what still has work", async () => {
    const job = async (state: string, finishedDaysAgo: number | null) =>
      (
        await prisma.job.create({
          data: {
            kind: "test.kind",
            state,
            finishedAt: finishedDaysAgo === null ? null : ago(finishedDaysAgo),
          },
        })
      ).id;
    const oldDone = await job("completed", 8);
    const oldCancelled = await job("cancelled", 8);
    const recentDone = await job("completed", 6);
    const oldDead = await job("dead", 30); // kept: the operator looks at dead jobs
    const running = await job("running", null);

    let n = 0;
    const event = (days: number) =>
      prisma.webhookEvent.create({
        data: {
          source: "svc",
          shopDomain: SHOP,
          topic: "ORDER",
          eventKey: `e-${++n}`,
          payload: {},
          receivedAt: ago(days),
        },
      });
    await event(31);
    const keptEvent = await event(29);

    const notice = (key: string, days: number, digestId: string | null) =>
      prisma.notice.create({
        data: {
          shopDomain: SHOP,
          kind: "failures",
          key,
          text: key,
          createdAt: ago(days),
          digestId,
        },
      });
    await notice("old-sent", 91, "d-old");
    await notice("old-waiting", 91, null);
    await notice("recent-sent", 89, "d-recent");
    const digest = (id: string, days: number, sent: boolean, attempts: number) =>
      prisma.noticeDigest.create({
        data: {
          id,
          shopDomain: SHOP,
          messageId: `<${id}@x>`,
          recipients: "a@example.com",
          subject: "",
          notices: 1,
          createdAt: ago(days),
          sentAt: sent ? ago(days) : null,
          attempts,
        },
      });
    await digest("d-old", 91, true, 1);
    await digest("d-given-up", 91, false, 8);
    await digest("d-unsent", 91, false, 2);
    await digest("d-recent", 89, true, 1);

    const change = (days: number) =>
      prisma.syncChange.create({
        data: { shopDomain: SHOP, shopifyVariantId: "1", kind: "stock", at: ago(days) },
      });
    await change(91);
    const keptChange = await change(89);

    const { id } = await enqueue(prisma, { kind: "jobs.prune", payload: {} });
    const worker = new Worker({
      prisma,
      workerId: "w-prune",
      handlers: { "jobs.prune": handlers["jobs.prune"]! },
    });
    expect(await worker.drain()).toBe(1);
    const pruned = await prisma.job.findUniqueOrThrow({ where: { id } });
    expect(pruned.result).toEqual({ jobs: 2, events: 1, notices: 1, syncChanges: 1, digests: 2 });
    expect((await prisma.syncChange.findMany()).map((c) => c.id)).toEqual([keptChange.id]);

    const jobs = (await prisma.job.findMany({ where: { kind: "test.kind" } })).map((j) => j.id);
    expect(jobs.sort()).toEqual([recentDone, oldDead, running].sort());
    expect(jobs).not.toContain(oldDone);
    expect(jobs).not.toContain(oldCancelled);
    expect((await prisma.webhookEvent.findMany()).map((e) => e.id)).toEqual([keptEvent.id]);
    expect((await prisma.notice.findMany()).map((x) => x.key).sort()).toEqual([
      "old-waiting",
      "recent-sent",
    ]);
    expect((await prisma.noticeDigest.findMany()).map((d) => d.id).sort()).toEqual([
      "d-recent",
      "d-unsent",
    ]);
  });
});
