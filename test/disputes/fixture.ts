/**
 * A small dispute fixture over HTTP, without the order pipeline: the service simulator, an
 * account connected to a shop, and paid service orders with a shop order row that names them
 * (what the pipeline leaves behind), so that the dispute use cases run in well under a second.
 */
import { randomBytes } from "node:crypto";
import { prisma } from "../../app/db.server";
import { svcClientForAccount, type SvcClient } from "../../app/svc/client.server";
import { saveApiKeyAccount } from "../../app/svc/tokens.server";
import { startServiceSim, type ServiceSim } from "../sim/service/index";
import { sampleOrder, simClock } from "../svc/sim-helpers";

export { prisma };

export interface DisputeFixture {
  svc: ServiceSim;
  client: SvcClient;
  account: { id: string; shopDomain: string };
  simAccountId: string;
  /** A paid service order of two lines (2 × the first variant, 1 × the second) and its shop row. */
  paidOrder(opts?: { shopOrderName?: string | null }): Promise<{
    id: string;
    svcOrderId: string;
    orderNumber: string;
    name: string | null;
    lineIds: [string, string];
  }>;
  close(): Promise<void>;
}

let seq = 0;

export async function disputeFixture(
  shopDomain: string,
  opts: { clientTimeoutMs?: number } = {},
): Promise<DisputeFixture> {
  const svc = await startServiceSim({ catalogSize: 20, allowLoopbackUploads: true });
  const simAccount = svc.createAccount({
    balance: "5000.00",
    callsPerSecond: 100,
    queryCallsPerSecond: 100,
  });
  const row = await saveApiKeyAccount(prisma, {
    baseUrl: svc.url,
    apiKey: simAccount.apiKey,
    shopDomain,
    callsPerSecond: 100,
    queryCallsPerSecond: 100,
  });
  const client = await svcClientForAccount(row.id, {
    prisma,
    clock: simClock(svc),
    timeoutMs: opts.clientTimeoutMs ?? 5_000,
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50 },
    retrySleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  const vids = [...svc.state.catalog.variantByVid.values()]
    .filter((v) => !v.removed)
    .map((v) => v.vid);
  return {
    svc,
    client,
    account: { id: row.id, shopDomain },
    simAccountId: simAccount.accountId,
    async paidOrder(o = {}) {
      const n = ++seq;
      const number = `DF-${randomBytes(3).toString("hex")}-${n}`;
      const created = await client.orders.createOrderV3(
        sampleOrder(number, vids[0]!, {
          isSandbox: 0,
          products: [
            { vid: vids[(2 * n) % vids.length], quantity: 2 },
            { vid: vids[(2 * n + 1) % vids.length], quantity: 1 },
          ],
        }),
      );
      const svcOrderId = created.orderId!;
      await client.orders.addCart([svcOrderId]);
      const confirm = await client.orders.addCartConfirm([svcOrderId]);
      await client.payment.payBalanceV2(confirm.shipmentsId!);
      const sim = svc.order(svcOrderId)!;
      const shop = await prisma.shopOrder.create({
        data: {
          shopDomain,
          shopifyOrderId: String(900000 + n),
          shopifyOrderName: o.shopOrderName === undefined ? `#${1000 + n}` : o.shopOrderName,
          orderNumber: number,
          svcAccountId: row.id,
          svcOrderId,
          state: "PAID",
          paidAt: new Date(),
        },
      });
      return {
        id: shop.id,
        svcOrderId,
        orderNumber: number,
        name: shop.shopifyOrderName,
        lineIds: [sim.lines[0]!.lineItemId, sim.lines[1]!.lineItemId],
      };
    },
    close: () => svc.close(),
  };
}
