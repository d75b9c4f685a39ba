/**
 * The minor findings of issue 35 outside the order pages and settings, through the routes and
 * use cases, signed in by the sandbox cookie (SANDBOX=1, as `npm run sandbox` runs), against the
 * service simulator over real HTTP.
 */
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceSim } from "../sim/service";
import { client, orderBody, variants } from "../sim/service/test-helpers";
import { callRoute } from "../helpers/remix";
import { installSandboxShop, startSandboxPages, type Route, UA } from "../helpers/sandbox-shop";

const SHOP = "minors-test.myshopify.com";

let sim: ServiceSim;
let prisma: PrismaClient;
let cookie: string;
let routes: {
  signin: Route;
  index: Route;
  sandboxAction: Route;
  settingsAction: Route;
  settingsLoader: Route;
  catalogLoader: Route;
  catalogAction: Route;
  inventoryLoader: Route;
};
let apiKey: string;

async function call(
  route: Route,
  path: string,
  opts: { form?: Record<string, string>; cookie?: string } = {},
) {
  const headers: Record<string, string> = { "user-agent": UA };
  if (opts.cookie) headers.cookie = opts.cookie;
  const init: RequestInit = { headers };
  if (opts.form) {
    init.method = "POST";
    init.body = new URLSearchParams(opts.form);
  }
  const r = await callRoute(route, new Request(`http://localhost:3000${path}`, init));
  return { status: r.status, text: await r.text(), headers: r.headers };
}

beforeAll(async () => {
  ({ sim, prisma } = await startSandboxPages());
  apiKey = sim.createAccount({ balance: "120.00" }).apiKey;
  const [signin, index, sandbox, settings, catalog, inventory] = await Promise.all([
    import("../../app/routes/sandbox.signin"),
    import("../../app/routes/_index/route"),
    import("../../app/routes/app.sandbox"),
    import("../../app/routes/app.settings"),
    import("../../app/routes/app.catalog"),
    import("../../app/routes/app.inventory"),
  ]);
  routes = {
    signin: signin.loader as Route,
    index: index.loader as Route,
    sandboxAction: sandbox.action as Route,
    settingsAction: settings.action as Route,
    settingsLoader: settings.loader as Route,
    catalogLoader: catalog.loader as Route,
    catalogAction: catalog.action as Route,
    inventoryLoader: inventory.loader as Route,
  };
  await installSandboxShop(prisma, SHOP);
  const signedIn = await call(routes.signin, "/sandbox/signin");
  cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
  expect(cookie).toMatch(/^sandbox_shop=/);
});
afterAll(async () => {
  await sim?.close();
});

describe("the bare address / in the sandbox", () => {
  it("leads to the sandbox sign-in, or to the app once signed in, never to Shopify's login form", async () => {
    const anonymous = await call(routes.index, "/");
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe("/sandbox/signin");
    const signedIn = await call(routes.index, "/", { cookie });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("location")).toBe("/app");
    // Shopify opening the app with ?shop= still goes to the app.
    const fromShopify = await call(routes.index, `/?shop=${SHOP}`);
    expect(fromShopify.headers.get("location")).toBe(`/app?shop=${encodeURIComponent(SHOP)}`);
  });
});

describe("the sandbox's Ship it", () => {
  it("ships an order that already has the sandbox test number under a new carrier-like number", async () => {
    const c = await client(sim, { balance: "300.00" });
    const [v] = variants(sim, 1);
    const created = await c.post(
      "/shopping/order/createOrderV3",
      orderBody("MINORS-SHIP-1", [{ vid: v!.vid, quantity: 1 }], { isSandbox: 1 }),
    );
    expect(created.code).toBe(200);
    const svcOrderId = created.data.orderId as string;
    expect((await c.post("/shopping/pay/payBalance", { orderId: svcOrderId })).code).toBe(200);
    const sbx = "SBX-MINORS-SHIP-1";
    expect(
      (
        await c.post("/shopping/sandbox/updateTrackNumber", {
          orderId: svcOrderId,
          trackNumber: sbx,
        })
      ).code,
    ).toBe(200);
    expect(sim.order(svcOrderId)?.trackNumber).toBe(sbx);
    const order = await prisma.shopOrder.create({
      data: {
        shopDomain: SHOP,
        shopifyOrderId: "9001",
        shopifyOrderName: "#9001",
        orderNumber: "MINORS-SHIP-1",
        svcOrderId,
        isSandbox: true,
        state: "FULFILLED",
      },
    });

    const first = await call(routes.sandboxAction, "/app/sandbox", {
      cookie,
      form: { intent: "ship", orderId: order.id },
    });
    expect(first.status).toBe(302);
    const once = sim.order(svcOrderId)?.trackNumber ?? "";
    expect(once).not.toBe(sbx);
    expect(once).toMatch(/^[A-Z]{2}\d{9}CN$/);

    // Shipped again: again a new number, as a re-labelled parcel would get.
    await call(routes.sandboxAction, "/app/sandbox", {
      cookie,
      form: { intent: "ship", orderId: order.id },
    });
    const twice = sim.order(svcOrderId)?.trackNumber ?? "";
    expect(twice).toMatch(/^[A-Z]{2}\d{9}CN$/);
  });
});

describe("the dispute form", () => {
  const lines = [
    { lineItemId: "L1", svcProductName: "Blue mug", quantity: 1, canChoose: true, price: "4.00" },
    { lineItemId: "L2", svcProductName: "Red cap", quantity: 2, canChoose: false, price: "3.00" },
  ];

  it("says a quantity is more than ordered instead of asking to choose a line", async () => {
    const { chosenLines } = await import("../../app/disputes/open.server");
    const { DisputeInputError } = await import("../../app/disputes/forms.server");
    const refused = (q: Record<string, number>) => {
      try {
        chosenLines(lines, q);
      } catch (e) {
        expect(e).toBeInstanceOf(DisputeInputError);
        return (e as Error).message;
      }
      return "accepted";
    };
    expect(refused({ L1: 99 })).toBe(
      "Blue mug: 99 is more than the 1 ordered; at most 1 can be disputed.",
    );
    expect(refused({ L2: 1 })).toMatch(/Red cap: an open dispute already covers it/);
    expect(refused({ GONE: 1 })).toMatch(/no longer on the order/);
    expect(refused({})).toMatch(/^Choose at least one line/);
    expect(refused({ L1: 0 })).toMatch(/^Choose at least one line/);
    expect(chosenLines(lines, { L1: 1 })).toEqual([
      { lineItemId: "L1", quantity: 1, price: "4.00" },
    ]);
  });

  it("reads the addresses one a line and names a bad one whole, never split at its spaces", async () => {
    const { attachmentsOf, attachmentsToService, DisputeInputError } = await import(
      "../../app/disputes/forms.server"
    );
    const form = new FormData();
    form.set("addresses", "https://img.example/a.jpg\r\nmy photo of the box.jpg\n\n");
    const { addresses, files } = attachmentsOf(form);
    expect(files).toEqual([]);
    expect(addresses).toEqual(["https://img.example/a.jpg", "my photo of the box.jpg"]);
    // A bad address is refused before anything is sent (no client call is reached).
    const err = await attachmentsToService(prisma, null as never, SHOP, "http://localhost:3000", {
      files: [],
      addresses,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DisputeInputError);
    expect((err as Error).message).toBe(
      'Line 2: "my photo of the box.jpg" is not a web address. Put one address on each line, starting with https:// and without spaces.',
    );
    expect((err as InstanceType<typeof DisputeInputError>).field).toBe("addresses");
  });
});

describe("the Catalog page", () => {
  it("names an import by its product before the job starts, and says which warehouses the shop's stock counts", async () => {
    const connected = JSON.parse(
      (
        await call(routes.settingsAction, "/app/settings", {
          cookie,
          form: { intent: "connect-key", apiKey },
        })
      ).text,
    ) as { ok: boolean };
    expect(connected.ok).toBe(true);
    type Page = {
      results: { pid: string; name: string }[];
      imports: { pid: string; title: string; status: string }[];
      stockCountries: string[];
    };
    const page = JSON.parse(
      (await call(routes.catalogLoader, "/app/catalog", { cookie })).text,
    ) as Page;
    // The shop's stock counts the ship-from country's warehouses unless the setting names others.
    expect(page.stockCountries).toEqual(["CN"]);
    const product = page.results[0]!;
    expect(product.name).not.toBe("");
    const started = JSON.parse(
      (
        await call(routes.catalogAction, "/app/catalog", {
          cookie,
          form: { intent: "import", pid: product.pid, name: product.name },
        })
      ).text,
    ) as { ok: boolean };
    expect(started.ok).toBe(true);
    const after = JSON.parse(
      (await call(routes.catalogLoader, "/app/catalog", { cookie })).text,
    ) as Page;
    const row = after.imports.find((i) => i.pid === product.pid)!;
    expect(row.status).toBe("queued");
    expect(row.title).toBe(product.name);
    expect(JSON.stringify(after.imports)).not.toContain(`"title":"${product.pid}"`);
  });
});

describe("the sync log", () => {
  it("names a changed variant by its product, variant and SKU, not by its id", async () => {
    const { syncChangeNames } = await import("../../app/catalog/sync-log.server");
    await prisma.catalogVariant.create({
      data: {
        vid: "vid-log-1",
        pid: "pid-log",
        productName: "Ceramic mug",
        variantKey: "Black-XL",
      },
    });
    await prisma.productConnection.create({
      data: {
        shopDomain: SHOP,
        shopifyProductId: "500",
        shopifyVariantId: "1007028",
        sku: "MUG-BLK-XL",
        svcVid: "vid-log-1",
      },
    });
    const names = await syncChangeNames(prisma, SHOP, ["1007028", "1007029", "1007028"]);
    expect(names).toEqual({
      "1007028": "Ceramic mug · Black-XL (SKU MUG-BLK-XL)",
      "1007029": "a variant that is no longer connected",
    });
  });
});

describe("a service that does not answer", () => {
  it("holds no page: Catalog and Inventory show what is known and say what could not be read", async () => {
    // Every call is held for a minute, far longer than any page may wait.
    sim.setFaults({ rateTimeout: 1, timeoutMs: 60_000 });
    try {
      const [catalog, inventory] = await Promise.all([
        call(routes.catalogLoader, "/app/catalog?q=mug", { cookie }),
        call(routes.inventoryLoader, "/app/inventory?product=p-1", { cookie }),
      ]);
      const c = JSON.parse(catalog.text) as {
        error: string | null;
        imports: unknown[];
        results: unknown[];
      };
      expect(c.error).toMatch(/^The supplier's catalog did not answer within a few seconds/);
      expect(c.error).not.toMatch(/[A-Z_]{6,}|requestId|\d{6,}/);
      // What the app knows itself is still there.
      expect(c.imports.length).toBeGreaterThan(0);
      expect(c.results).toEqual([]);
      const i = JSON.parse(inventory.text) as { error: string | null; view: unknown };
      expect(i.view).toBeNull();
      expect(i.error).toMatch(/did not answer within a few seconds/);

      // Settings: its balance, warehouse and warehouse list are read together, each bounded;
      // the forms (the app's own settings) are all there.
      const settings = await call(routes.settingsLoader, "/app/settings", { cookie });
      const st = JSON.parse(settings.text) as {
        settings: { reviewWindowMinutes: number };
        balance: { amount: string | null; error: string | null } | null;
        warehouses: { ok: boolean; reason?: string };
      };
      expect(st.settings.reviewWindowMinutes).toBeTypeOf("number");
      expect(st.balance?.amount).toBeNull();
      expect(st.balance?.error).toMatch(/^The service's balance did not answer within a few/);
      expect(st.warehouses).toEqual({
        ok: false,
        reason: expect.stringMatching(/^The service's list of warehouses did not answer within/),
      });
    } finally {
      sim.setFaults({});
    }
  }, 25_000);
});
