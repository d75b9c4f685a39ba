/**
 * The admin pages' loaders and actions through their routes, signed in by the sandbox cookie
 * (SANDBOX=1, as `npm run sandbox` runs), against the service simulator: bad form input is
 * answered by field and changes nothing; secrets never reach a page's data.
 */
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceSim, startServiceSim } from "../sim/service";
import { callRoute } from "../helpers/remix";
import { installSandboxShop, type Route, UA } from "../helpers/sandbox-shop";
import { LABEL_MODE_REFUSED } from "../../app/settings.server";

const SHOP = "pages-test.myshopify.com";

let sim: ServiceSim;
let prisma: PrismaClient;
let cookie: string;
let apiKey: string;
let routes: {
  signin: Route;
  settingsLoader: Route;
  settingsAction: Route;
  productsAction: Route;
  catalogLoader: Route;
  catalogAction: Route;
  dashboard: Route;
};

async function call(route: Route, path: string, form?: Record<string, string>) {
  const init: RequestInit = { headers: { cookie, "user-agent": UA } };
  if (form) {
    init.method = "POST";
    init.body = new URLSearchParams(form);
  }
  const r = await callRoute(route, new Request(`http://localhost:3000${path}`, init));
  return { status: r.status, text: await r.text(), headers: r.headers };
}

const post = async (route: Route, path: string, form: Record<string, string>) =>
  JSON.parse((await call(route, path, form)).text) as {
    ok: boolean;
    errors?: Record<string, string>;
    message?: string;
  };

beforeAll(async () => {
  sim = await startServiceSim({ allowLoopbackWebhooks: true });
  apiKey = sim.createAccount({ balance: "120.00" }).apiKey;
  process.env.SANDBOX = "1";
  process.env.SVC_BASE_URL = sim.url;
  process.env.SHOPIFY_APP_URL = "http://localhost:3000";
  ({ prisma } = await import("../../app/db.server"));
  const [signin, settings, products, dashboard, catalogRoute] = await Promise.all([
    import("../../app/routes/sandbox.signin"),
    import("../../app/routes/app.settings"),
    import("../../app/routes/app.products"),
    import("../../app/routes/app._index"),
    import("../../app/routes/app.catalog"),
  ]);
  routes = {
    signin: signin.loader as Route,
    settingsLoader: settings.loader as Route,
    settingsAction: settings.action as Route,
    productsAction: products.action as Route,
    catalogLoader: catalogRoute.loader as Route,
    catalogAction: catalogRoute.action as Route,
    dashboard: dashboard.loader as Route,
  };
  await installSandboxShop(prisma, SHOP);
});

afterAll(async () => {
  await sim?.close();
});

describe("the sandbox sign-in", () => {
  it("signs the shop in with a signed cookie and opens the app", async () => {
    const r = await callRoute(routes.signin, new Request("http://localhost:3000/sandbox/signin"));
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/app");
    const setCookie = r.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^sandbox_shop=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    cookie = setCookie.split(";")[0]!;
    const page = await call(routes.dashboard, "/app");
    expect(page.status).toBe(200);
  });

  it("sends a forged or edited cookie back to the sign-in", async () => {
    const forged = `sandbox_shop=${Buffer.from(JSON.stringify({ shop: SHOP })).toString("base64")}`;
    const r = await callRoute(
      routes.dashboard,
      new Request("http://localhost:3000/app", { headers: { cookie: forged } }),
    );
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/sandbox/signin");
  });
});

describe("settings", () => {
  it("answers bad settings by field and changes nothing", async () => {
    const before = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    const r = await post(routes.settingsAction, "/app/settings", {
      intent: "save-settings",
      trigger: "orders/paid",
      reviewWindowMinutes: "-5",
      payBatchSize: "1000",
      fromCountryCode: "USA",
      iossType: "2",
      iossNumber: "",
      shopLogisticsType: "2",
    });
    expect(r.ok).toBe(false);
    expect(Object.keys(r.errors!).sort()).toEqual(
      ["fromCountryCode", "iossNumber", "payBatchSize", "reviewWindowMinutes"].sort(),
    );
    // Plain sentences, not the validator's wording.
    expect(r.errors!.reviewWindowMinutes).toBe("0 or more minutes");
    expect(r.errors!.payBatchSize).toBe("At most 100 orders (the service's limit per batch)");
    const after = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(after.settings).toEqual(before.settings);
    expect(after.updatedAt).toEqual(before.updatedAt);
  });

  it("refuses a malformed or unknown API key by its field and stores nothing", async () => {
    const short = await post(routes.settingsAction, "/app/settings", {
      intent: "connect-key",
      apiKey: "abc",
    });
    expect(short.errors).toEqual({ apiKey: "The API key is at least 8 characters" });
    const unknown = await post(routes.settingsAction, "/app/settings", {
      intent: "connect-key",
      apiKey: "SVCAPI@ACC999999@0000000000000000",
    });
    expect(unknown.errors?.apiKey).toMatch(/refused/);
    expect(await prisma.svcAccount.count({ where: { shopDomain: SHOP } })).toBe(0);
  });

  it("connects with a good key, registers the webhooks, and never shows a secret", async () => {
    const r = await post(routes.settingsAction, "/app/settings", {
      intent: "connect-key",
      apiKey,
    });
    expect(r).toMatchObject({ ok: true, message: "Connected to the service" });
    const account = await prisma.svcAccount.findUniqueOrThrow({ where: { shopDomain: SHOP } });
    expect(account.apiKeyEnc).not.toContain(apiKey);
    const { decryptSecret } = await import("../../app/crypto.server");
    const webhookSecret = decryptSecret(account.webhookSecretEnc!);
    expect(webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(account.webhookRegisteredAt).not.toBeNull();
    expect(sim.calls({ op: "webhookSet" }).length).toBe(1);

    const page = await call(routes.settingsLoader, "/app/settings");
    expect(page.status).toBe(200);
    const data = JSON.parse(page.text);
    expect(data.account.connected).toBe(true);
    expect(data.account.apiKeyMasked).toBe(`••••••••${apiKey.slice(-4)}`);
    expect(data.balance.amount).toBe("120.00");
    for (const secret of [apiKey, webhookSecret, account.apiKeyEnc!]) {
      expect(page.text).not.toContain(secret);
    }
    expect(page.text).not.toContain(account.accessTokenEnc!);
    const dash = await call(routes.dashboard, "/app");
    expect(dash.text).not.toContain(webhookSecret);
    expect(dash.text).not.toContain(apiKey);
  });

  it("checks the warehouse with the service before saving", async () => {
    const base = { intent: "save-settings", trigger: "orders/create", shopLogisticsType: "2" };
    const bad = await post(routes.settingsAction, "/app/settings", {
      ...base,
      storageId: "STG-NOPE",
    });
    expect(bad.errors).toEqual({ storageId: "The service knows no warehouse with this id" });
    const before = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect((before.settings as { trigger?: string }).trigger).not.toBe("orders/create");

    const ok = await post(routes.settingsAction, "/app/settings", {
      ...base,
      storageId: "STG-CN-1",
      reviewWindowMinutes: "15",
    });
    expect(ok).toMatchObject({ ok: true });
    const after = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(after.settings).toMatchObject({
      trigger: "orders/create",
      storageId: "STG-CN-1",
      shopLogisticsType: 2,
      reviewWindowMinutes: 15,
    });
    const page = JSON.parse((await call(routes.settingsLoader, "/app/settings")).text);
    expect(page.warehouse.name).toBeTruthy();
  });

  it("refuses the warehouse modes that need a label after payment, by field, and changes nothing", async () => {
    const before = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    for (const mode of ["1", "3"]) {
      const r = await post(routes.settingsAction, "/app/settings", {
        intent: "save-settings",
        shopLogisticsType: mode,
        storageId: "STG-CN-1",
        reviewWindowMinutes: "30",
      });
      expect(r).toMatchObject({ ok: false, errors: { shopLogisticsType: LABEL_MODE_REFUSED } });
    }
    const after = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(after.settings).toEqual(before.settings);
    // The page offers merchant logistics only, and says why.
    const html = (await call(routes.settingsLoader, "/app/settings")).text;
    expect(JSON.parse(html).settings.shopLogisticsType).toBe(2);
  });

  it("saves each choice for lines without a connection, refuses others", async () => {
    for (const v of ["connected", "send", "hold"]) {
      const r = await post(routes.settingsAction, "/app/settings", {
        intent: "save-settings",
        unconnectedLines: v,
      });
      expect(r).toMatchObject({ ok: true });
      const row = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
      expect((row.settings as { unconnectedLines?: string }).unconnectedLines).toBe(v);
    }
    const before = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    const bad = await post(routes.settingsAction, "/app/settings", {
      intent: "save-settings",
      unconnectedLines: "all",
      reviewWindowMinutes: "45",
    });
    expect(bad).toMatchObject({
      ok: false,
      errors: {
        unconnectedLines: "Choose what happens to orders with lines that are not connected",
      },
    });
    const after = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    expect(after.settings).toEqual(before.settings);
  });

  it("offers the service's warehouses to ship from; keeps a saved one no longer listed; says when the list cannot be read", async () => {
    const page = async () => JSON.parse((await call(routes.settingsLoader, "/app/settings")).text);
    // A page waits at most a few seconds for the service (page-kit/page-reads.server.ts): on a
    // busy machine the first read may run past that and the page rightly says so. What must
    // hold: once the service answers in time, the list is offered.
    const listed = async () => {
      let p = await page();
      for (let i = 0; i < 5 && !p.warehouses.ok; i++) p = await page();
      expect(p.warehouses.ok).toBe(true);
      return p;
    };
    const first = await listed();
    expect(first.warehouses.warehouses).toEqual(
      expect.arrayContaining([
        { code: "CN", name: "China Warehouse", country: "China" },
        { code: "DE", name: "Germany Warehouse", country: "Germany" },
        { code: "US", name: "United States Warehouse", country: "United States" },
      ]),
    );
    const save = (fromCountryCode: string) =>
      post(routes.settingsAction, "/app/settings", { intent: "save-settings", fromCountryCode });
    expect(await save("DE")).toMatchObject({ ok: true });
    // A country the service does not list: refused, nothing changed.
    expect(await save("FR")).toMatchObject({
      ok: false,
      errors: { fromCountryCode: "Choose one of the service's warehouses from the list" },
    });
    const stored = async () =>
      (
        (await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).settings as {
          fromCountryCode: string;
        }
      ).fromCountryCode;
    expect(await stored()).toBe("DE");

    // The service stops listing DE: the saved value stays and can be saved again.
    const list = sim.state.catalog.globalWarehouses;
    const at = list.findIndex((w) => w.countryCode === "DE");
    const [de] = list.splice(at, 1);
    try {
      const p = await listed();
      expect(p.warehouses.warehouses.map((w: { code: string }) => w.code)).not.toContain("DE");
      expect(p.settings.fromCountryCode).toBe("DE");
      expect(await save("DE")).toMatchObject({ ok: true });
    } finally {
      list.splice(at, 0, de!);
    }

    // The service fails: the page says so; the saved value is kept, another is not taken blind.
    sim.setFaults({ rate5xx: 1, ops: ["globalWarehouseList"] });
    try {
      const p = await page();
      expect(p.warehouses).toEqual({
        ok: false,
        reason: "The service did not give its list of warehouses just now. Try again later.",
      });
      expect(await save("DE")).toMatchObject({ ok: true });
      expect(await save("US")).toMatchObject({
        ok: false,
        errors: {
          fromCountryCode:
            "The service did not give its list of warehouses just now. Try again later. Until then the saved warehouse is kept.",
        },
      });
      expect(await stored()).toBe("DE");
    } finally {
      sim.clearFaults();
    }
    expect(await save("CN")).toMatchObject({ ok: true });
  });
});

describe("products", () => {
  it("refuses a bad connect form by field, and connects a variant at the service", async () => {
    const bad = await post(routes.productsAction, "/app/products", {
      intent: "connect",
      productId: "gid://x",
      variantId: "12",
      vid: "",
    });
    expect(Object.keys(bad.errors!).sort()).toEqual(["productId", "vid"]);
    expect(await prisma.productConnection.count()).toBe(0);

    const catalog = (await (await fetch(`${sim.url}/__sim/catalog?limit=1`)).json()) as {
      pid: string;
      variants: { vid: string; variantSku: string }[];
    }[];
    const variant = catalog[0]!.variants[0]!;
    const ok = await post(routes.productsAction, "/app/products", {
      intent: "connect",
      productId: "7001",
      variantId: "9001",
      vid: variant.vid,
      sku: "MY-SKU",
    });
    expect(ok).toMatchObject({ ok: true });
    const row = await prisma.productConnection.findFirstOrThrow({ where: { shopDomain: SHOP } });
    expect(row).toMatchObject({
      shopifyProductId: "7001",
      shopifyVariantId: "9001",
      svcVid: variant.vid,
      svcProductId: catalog[0]!.pid,
    });
    expect(sim.calls({ op: "connectionCreate" }).length).toBe(1);

    const gone = await post(routes.productsAction, "/app/products", {
      intent: "disconnect",
      variantId: "9001",
    });
    expect(gone).toMatchObject({ ok: true });
    expect(await prisma.productConnection.count()).toBe(0);
  });

  it("connects all variants by options, adds a backup only from that product, keeps a price", async () => {
    const catalog = (await (await fetch(`${sim.url}/__sim/catalog?limit=10`)).json()) as {
      pid: string;
      variants: { vid: string; variantKey: string }[];
    }[];
    const product = catalog.find((p) => p.variants.length >= 2)!;
    const other = catalog.find((p) => p.pid !== product.pid)!;
    const [a, b] = product.variants;
    const pairs = `9101\t${a!.vid}\tSKU-A\n9102\t${b!.vid}\tSKU-B`;
    const bad = await post(routes.productsAction, "/app/products", {
      intent: "connect-all",
      productId: "7101",
      pid: product.pid,
      pairs: "abc\tx",
    });
    expect(bad).toMatchObject({ ok: false, errors: { pairs: "A pairing is not valid" } });
    expect(await prisma.productConnection.count()).toBe(0);
    const ok = await post(routes.productsAction, "/app/products", {
      intent: "connect-all",
      productId: "7101",
      pid: product.pid,
      pairs,
    });
    expect(ok).toMatchObject({ ok: true, message: "2 variants connected" });
    expect(
      (await prisma.productConnection.findMany({ orderBy: { shopifyVariantId: "asc" } })).map(
        (r) => [r.shopifyVariantId, r.svcVid],
      ),
    ).toEqual([
      ["9101", a!.vid],
      ["9102", b!.vid],
    ]);

    // A backup must be a variant of the product named, not the first supplier, at most 3.
    const addBackup = (pid: string, vid: string) =>
      post(routes.productsAction, "/app/products", {
        intent: "add-backup",
        variantId: "9101",
        pid,
        vid,
      });
    const wrong = await addBackup(product.pid, other.variants[0]!.vid);
    expect(wrong).toMatchObject({
      ok: false,
      errors: { vid: "Not a variant of that catalog product" },
    });
    const same = await addBackup(product.pid, a!.vid);
    expect(same).toMatchObject({ ok: false });
    expect(await prisma.backupSupplier.count()).toBe(0);
    const added = await addBackup(other.pid, other.variants[0]!.vid);
    expect(added).toMatchObject({ ok: true, message: "Backup supplier 2 added" });
    const twice = await addBackup(other.pid, other.variants[0]!.vid);
    expect(twice).toMatchObject({
      ok: false,
      errors: { form: "This catalog variant is a backup already" },
    });
    expect(await prisma.backupSupplier.count()).toBe(1);

    // Keep price: only for a flagged cost change; the catalog's cost becomes the base.
    const notFlagged = await post(routes.productsAction, "/app/products", {
      intent: "keep-price",
      variantId: "9102",
    });
    expect(notFlagged).toMatchObject({ ok: false });
    await prisma.productConnection.update({
      where: { shopDomain_shopifyVariantId: { shopDomain: SHOP, shopifyVariantId: "9102" } },
      data: { flag: "cost_change", pricedFromUsd: "1.00" },
    });
    await prisma.catalogVariant.upsert({
      where: { vid: b!.vid },
      create: { vid: b!.vid, pid: product.pid, productName: "P", costUsd: "3.25" },
      update: { costUsd: "3.25" },
    });
    const kept = await post(routes.productsAction, "/app/products", {
      intent: "keep-price",
      variantId: "9102",
    });
    expect(kept).toMatchObject({ ok: true });
    const row = await prisma.productConnection.findFirstOrThrow({
      where: { shopifyVariantId: "9102" },
    });
    expect(row.flag).toBeNull();
    expect(row.pricedFromUsd?.toString()).toBe("3.25");

    // Shipping quotes: nothing to quote is said plainly; a quote is stored for the page.
    const none = await post(routes.productsAction, "/app/products", {
      intent: "quote-shipping",
      vids: "",
    });
    expect(none).toMatchObject({
      ok: false,
      errors: { form: "No connected variant on this page" },
    });
    const quoted = await post(routes.productsAction, "/app/products", {
      intent: "quote-shipping",
      vids: `${a!.vid},${b!.vid},${a!.vid}`,
    });
    expect(quoted).toMatchObject({ ok: true, message: "Shipping quoted for 2 catalog variants" });
    expect(await prisma.freightQuote.count()).toBe(2);
  });
});

describe("catalog", () => {
  it("lists the catalog by category with paging, and starts one import per product", async () => {
    const page = JSON.parse((await call(routes.catalogLoader, "/app/catalog?page=2")).text) as {
      categories: { value: string }[];
      results: { pid: string; priceUsd: string; supplier: string }[];
      totalPages: number;
      query: { page: number };
    };
    expect(page.query.page).toBe(2);
    expect(page.categories.length).toBeGreaterThan(10);
    expect(page.results).toHaveLength(20);
    expect(page.totalPages).toBeGreaterThan(2);
    expect(page.results[0]!.priceUsd).toMatch(/^\d+(\.\d+)?$/);
    const cat = page.categories[0]!.value;
    const inCat = JSON.parse(
      (await call(routes.catalogLoader, `/app/catalog?cat=${encodeURIComponent(cat)}`)).text,
    ) as { results: unknown[]; total: number };
    expect(inCat.total).toBeLessThan(page.totalPages * 20);

    const bad = await post(routes.catalogAction, "/app/catalog", { intent: "import", pid: "" });
    expect(bad).toMatchObject({ ok: false, errors: { pid: "Choose a catalog product" } });
    const unknown = await post(routes.catalogAction, "/app/catalog", { intent: "nope" });
    expect(unknown).toMatchObject({ ok: false, errors: { form: "Unknown action" } });
    expect(await prisma.catalogImport.count()).toBe(0);
    const pid = page.results[0]!.pid;
    const ok = await post(routes.catalogAction, "/app/catalog", { intent: "import", pid });
    const again = await post(routes.catalogAction, "/app/catalog", { intent: "import", pid });
    expect(ok).toMatchObject({ ok: true, message: /^Import started/ });
    expect(again).toMatchObject({ ok: true, message: "This product is being imported already" });
    expect(await prisma.catalogImport.count({ where: { pid } })).toBe(1);
    expect(await prisma.job.count({ where: { kind: "catalog.import" } })).toBe(1);
  });
});
