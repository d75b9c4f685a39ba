/**
 * The admin API under /__sim (plain JSON, no envelope) so that other processes (a benchmark,
 * the sandbox) can drive the simulator. See README.md for the list of routes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { completeAuthorization } from "./auth";
import { variantRecord } from "./products";
import type { Faults, FaultConfig } from "./faults";
import type { ServiceSim } from "./index";
import { readBody, sendJson } from "./server";

type Json = Record<string, unknown>;

class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function num(v: unknown, name: string): number {
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n))
    throw new AdminError(400, `${name} must be a number`);
  return n;
}

function text(v: unknown, name: string): string {
  if (typeof v !== "string" || v === "")
    throw new AdminError(400, `${name} must be a non-empty string`);
  return v;
}

export async function handleAdmin(
  sim: ServiceSim,
  faults: Faults,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = req.method ?? "GET";
  const parts = url.pathname.split("/").filter(Boolean).slice(1).map(decodeURIComponent); // drop "__sim"
  let body: Json = {};
  try {
    const raw = await readBody(req);
    if (raw.trim()) body = JSON.parse(raw) as Json;
  } catch {
    sendJson(res, 400, { error: "body must be JSON" });
    return;
  }
  const q = (k: string) => url.searchParams.get(k) ?? undefined;
  try {
    const [a, b, c] = parts;
    const route = `${method} ${a ?? ""}${b !== undefined ? "/:" : ""}${c !== undefined ? `/${c}` : ""}`;
    switch (route) {
      case "GET health":
        return sendJson(res, 200, { ok: true, now: sim.clock.now() });
      case "POST accounts":
        return sendJson(
          res,
          200,
          sim.createAccount(body as Parameters<ServiceSim["createAccount"]>[0]),
        );
      case "GET accounts":
        return sendJson(
          res,
          200,
          [...sim.state.accounts.values()].map((x) => ({
            accountId: x.accountId,
            apiKey: x.apiKey,
            openId: x.openId,
            kind: x.kind,
            email: x.email,
            balance: sim.getBalance(x.accountId),
            shopId: x.shopId,
            shopName: x.shopName,
          })),
        );
      case "GET accounts/:/balance":
        return sendJson(res, 200, { amount: sim.getBalance(text(b, "accountId")) });
      case "POST accounts/:/balance":
        sim.setBalance(text(b, "accountId"), String(body.amount ?? ""));
        return sendJson(res, 200, { amount: sim.getBalance(text(b, "accountId")) });
      case "POST accounts/:/limits":
        sim.setRateLimits(
          text(b, "accountId"),
          body as { callsPerSecond?: number; queryCallsPerSecond?: number },
        );
        return sendJson(res, 200, { ok: true });
      case "GET faults":
        return sendJson(res, 200, faults.snapshot());
      case "POST faults":
        sim.setFaults(body as FaultConfig);
        return sendJson(res, 200, faults.snapshot());
      case "DELETE faults":
        sim.clearFaults();
        return sendJson(res, 200, { ok: true });
      case "POST latency":
        sim.setLatency(num(body.ms, "ms"));
        return sendJson(res, 200, { ok: true });
      case "GET clock":
        return sendJson(res, 200, { now: sim.clock.now() });
      case "POST clock":
        if (body.advance !== undefined) sim.clock.advance(num(body.advance, "advance"));
        if (body.set !== undefined) sim.clock.set(num(body.set, "set"));
        return sendJson(res, 200, { now: sim.clock.now() });
      case "GET calls":
        return sendJson(res, 200, sim.calls({ op: q("op"), accountId: q("accountId") }));
      case "GET orders":
        return sendJson(res, 200, sim.orders({ accountId: q("accountId") }));
      case "GET orders/:": {
        const o = sim.order(text(b, "order"));
        return o ? sendJson(res, 200, o) : sendJson(res, 404, { error: "order not found" });
      }
      case "POST orders/:/ship":
        sim.ship(text(b, "order"), body);
        await sim.deliverPendingWebhooks();
        return sendJson(res, 200, sim.order(text(b, "order")));
      case "POST orders/:/console-pay":
        sim.payInConsole(text(b, "order"));
        await sim.deliverPendingWebhooks();
        return sendJson(res, 200, sim.order(text(b, "order")));
      case "POST orders/:/deliver":
        sim.deliver(text(b, "order"));
        await sim.deliverPendingWebhooks();
        return sendJson(res, 200, sim.order(text(b, "order")));
      case "POST files/:": {
        // POST /__sim/files/expire {expired?: boolean}: the service's proof and photo links
        // answer 403 (or answer again).
        if (b !== "expire") break;
        sim.expireFileLinks(body.expired !== false);
        return sendJson(res, 200, { expired: body.expired !== false });
      }
      case "POST connections":
        sim.connectShopProduct(
          text(body.accountId, "accountId"),
          text(body.storeProductId, "storeProductId"),
          text(body.storeVariantId, "storeVariantId"),
          text(body.catalogVid, "catalogVid"),
        );
        return sendJson(res, 200, { ok: true });
      case "GET shop-products":
        return sendJson(
          res,
          200,
          sim.state.shopProducts.filter((p) => !q("accountId") || p.accountId === q("accountId")),
        );
      case "GET tokens": // every token issued, so a test can look for them where they must not be
        return sendJson(
          res,
          200,
          [...sim.state.tokensByAccess.values()].map((t) => ({
            accountId: t.accountId,
            accessToken: t.accessToken,
            refreshToken: t.refreshToken,
          })),
        );
      case "GET webhooks":
        return sendJson(res, 200, sim.webhookDeliveries());
      case "POST webhooks/:": // POST /__sim/webhooks/deliver
        if (b !== "deliver") break;
        await sim.deliverPendingWebhooks();
        return sendJson(res, 200, sim.webhookDeliveries());
      case "POST disputes/:/status":
        sim.setDisputeStatus(
          text(b, "disputeId"),
          num(body.status, "status"),
          typeof body.message === "string" ? body.message : undefined,
        );
        return sendJson(res, 200, { ok: true });
      case "POST catalog/:/variant": {
        // POST /__sim/catalog/<vid>/variant {inventory?, sellPrice?, removed?}
        const change: Parameters<ServiceSim["changeVariant"]>[1] = {};
        if (body.inventory !== undefined) {
          if (!body.inventory || typeof body.inventory !== "object")
            throw new AdminError(400, "inventory must be an object of country → count");
          change.inventory = Object.fromEntries(
            Object.entries(body.inventory as Json).map(([k, v]) => [k, num(v, `inventory.${k}`)]),
          );
        }
        if (body.sellPrice !== undefined)
          change.sellPrice = text(String(body.sellPrice), "sellPrice");
        if (body.removed === true) change.removed = true;
        sim.changeVariant(text(b, "vid"), change);
        await sim.deliverPendingWebhooks();
        return sendJson(res, 200, { ok: true });
      }
      case "GET catalog": {
        const n = Math.min(100, Number(q("limit") ?? "10"));
        const sku = q("sku");
        const products = sim.state.catalog.products
          .filter((p) => !p.removed && (!sku || p.sku === sku))
          .slice(0, n);
        return sendJson(
          res,
          200,
          products.map((p) => ({
            pid: p.pid,
            sku: p.sku,
            nameEn: p.nameEn,
            sellPrice: p.sellPrice,
            image: p.image,
            variants: p.variants.filter((v) => !v.removed).map((v) => variantRecord(v, false)),
          })),
        );
      }
      case "GET authorize":
      case "POST authorize": {
        const secret = text(q("secret") ?? body.secret, "secret");
        const email = q("email") ?? (typeof body.email === "string" ? body.email : undefined);
        const done = await completeAuthorization(sim.state, secret, email);
        if (method === "GET" && done.redirectUri) {
          res.writeHead(302, { location: done.redirectUri });
          res.end();
          return;
        }
        return sendJson(res, 200, done);
      }
    }
    sendJson(res, 404, { error: `no admin route ${method} ${url.pathname}` });
  } catch (e) {
    const status = e instanceof AdminError ? e.status : 400;
    sendJson(res, status, { error: e instanceof Error ? e.message : String(e) });
  }
}
