/**
 * `npm run sandbox`: the whole app on one machine, without Shopify or the real service.
 *
 * One process runs: the fulfilment-service simulator, the shop simulator, the embedded
 * database (PGlite in ./data/sandbox, fresh at every start) and the app (the Remix build) with
 * SANDBOX=1, its Shopify Admin API calls routed to the shop simulator. It seeds a demo shop
 * with a dozen products (most match catalog SKUs of the service simulator), an offline
 * session, and a funded sandbox account at the service, then prints the address to open.
 *
 * Options (environment): PORT (default 3000), SANDBOX_DATA_DIR (default ./data/sandbox).
 * With SANDBOX_JSON=1 it prints one JSON line with the addresses and the demo API key (for
 * the browser test).
 */
import { existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PrismaClient } from "@prisma/client";
import type { ServerBuild } from "@remix-run/node";
import { createAppServer } from "../server/app-server";
import { serverRuntimeOf } from "../server/runtime";
import { startFxSim } from "../test/sim/fx/server";
import { startMailSim } from "../test/sim/mail/server";
import { startServiceSim } from "../test/sim/service";
import { routeShopifyToSim } from "../test/sim/shop/route-shopify";
import { startShopSim } from "../test/sim/shop/server";

const PORT = Number(process.env.PORT ?? 3000);
const HOST = "127.0.0.1";
const APP_URL = `http://localhost:${PORT}`;
const DATA_DIR = resolve(process.env.SANDBOX_DATA_DIR ?? "./data/sandbox");
const DEMO_SHOP = "demo-shop.myshopify.com";
const API_SECRET = "sandbox-api-secret";
const json = process.env.SANDBOX_JSON === "1";
const say = (line: string) => {
  if (!json) console.log(line);
};

if (!existsSync("build/index.js")) {
  console.error("No build found: run `npm run sandbox` (it builds first) or `npx remix build`.");
  process.exit(1);
}

// 1. The simulators.
// The app and the simulators share this machine: the service may call and fetch from loopback.
const svcSim = await startServiceSim({ allowLoopbackWebhooks: true, allowLoopbackUploads: true });
const shopSim = await startShopSim({ apiSecret: API_SECRET, appUrl: APP_URL });
// Exchange rates shaped like the ECB's (the sandbox reaches nothing outside this machine).
const fxSim = await startFxSim();
// A real SMTP server in this process: the notification emails land there (the Mail page).
const mailSim = await startMailSim();
const demo = svcSim.createAccount({ balance: "500.00", email: "demo@example.com" });
const partner = svcSim.createAccount({ email: "operator@example.com" });

// 2. The app's environment, before the build reads its configuration.
rmSync(DATA_DIR, { recursive: true, force: true }); // the simulators start empty: so does the data
rmSync(`${DATA_DIR}.lock`, { force: true });
delete process.env.DATABASE_URL;
Object.assign(process.env, {
  NODE_ENV: "development",
  SANDBOX: "1",
  PORT: String(PORT),
  SHOPIFY_APP_URL: APP_URL,
  SHOPIFY_API_KEY: "sandbox-api-key",
  SHOPIFY_API_SECRET: API_SECRET,
  PGLITE_DATA_DIR: DATA_DIR,
  SVC_BASE_URL: svcSim.url,
  SVC_PARTNER_API_KEY: partner.apiKey,
  SANDBOX_SHOP_SIM_URL: shopSim.url,
  FX_RATES_URL: fxSim.url,
  SMTP_URL: mailSim.smtpUrl,
  SANDBOX_MAIL_SIM_URL: mailSim.url,
  LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
});

// 3. The app. Importing the build loads the Shopify library (which installs its fetch), so the
// routing to the shop simulator is installed after it.
const build = (await import(pathToFileURL(resolve("build/index.js")).href)) as ServerBuild;
routeShopifyToSim(shopSim.url);
const prisma = (globalThis as unknown as { __prisma: PrismaClient }).__prisma;

// 4. The demo shop: products, an offline session, the Shop row.
const { accessToken } = shopSim.addShop(DEMO_SHOP);
type CatalogItem = {
  nameEn: string;
  sku: string;
  image: string;
  variants: { variantSku: string; variantSellPrice: number; variantKey: string }[];
};
const catalog = (await (
  await fetch(`${svcSim.url}/__sim/catalog?limit=9`)
).json()) as CatalogItem[];
for (const p of catalog) {
  shopSim.addProduct(DEMO_SHOP, {
    title: p.nameEn,
    image: p.image,
    optionNames: ["Style"],
    variants: p.variants.slice(0, 3).map((v) => ({
      sku: v.variantSku,
      price: (Number(v.variantSellPrice) * 2.5).toFixed(2),
      options: [v.variantKey || "Default"],
    })),
  });
}
for (const [title, sku, price] of [
  ["Gift wrapping", "GIFT-WRAP", "4.00"],
  ["Handmade card", "CARD-HM-1", "6.50"],
  ["Sticker pack", "", "3.00"],
] as const) {
  shopSim.addProduct(DEMO_SHOP, { title, variants: [{ sku, price }] });
}
// Stored as the app stores every token: encrypted (imported now, with the app's environment).
const { sealToken } = await import("../app/shop/session-crypto.server");
const sealedToken = sealToken(accessToken);
await prisma.session.upsert({
  where: { id: `offline_${DEMO_SHOP}` },
  create: {
    id: `offline_${DEMO_SHOP}`,
    shop: DEMO_SHOP,
    state: "sandbox",
    isOnline: false,
    scope: process.env.SCOPES ?? "read_orders,read_products,write_products",
    accessToken: sealedToken,
  },
  update: { accessToken: sealedToken },
});
// Sandbox orders (nothing charged), shipping rules (the EU's cheapest within 10 days, a named
// method elsewhere, chosen from the simulator's freight quotes), short pay batches.
const demoSettings = {
  sandbox: true,
  shippingRules: [
    { to: "EU", from: "CN", strategy: "cheapest_within", days: 10, fallbacks: ["Express Air"] },
    { to: "*", from: "CN", strategy: "named", method: "SvcPacket Ordinary", fallbacks: [] },
  ],
  payBatchWindowSeconds: 5,
};
await prisma.shop.upsert({
  where: { domain: DEMO_SHOP },
  create: { domain: DEMO_SHOP, settings: demoSettings },
  update: { uninstalledAt: null, settings: demoSettings },
});

// 5. HTTP: the production server's edges (body limits, redacted request log, drain), in the
// development mode of Remix (error details in responses).
const runtime = serverRuntimeOf(build);
const app = createAppServer(build, { runtime, mode: "development" });
await app.listen(PORT, HOST);
// Ctrl+C: the app's shutdown runs this first (then the database), and exits.
runtime.onShutdown("sandbox", 5, async () => {
  await app.close(2000);
  await Promise.all([svcSim.close(), shopSim.close(), fxSim.close(), mailSim.close()]);
});

if (json) {
  console.log(
    JSON.stringify({
      ready: true,
      url: APP_URL,
      signIn: `${APP_URL}/sandbox/signin`,
      shop: DEMO_SHOP,
      apiKey: demo.apiKey,
      svcSimUrl: svcSim.url,
      shopSimUrl: shopSim.url,
      mailSimUrl: mailSim.url,
    }),
  );
} else {
  say("");
  say("  Dropship Autopilot sandbox is running.");
  say("");
  say(`  Open            ${APP_URL}/sandbox/signin`);
  say(`  Demo shop       ${DEMO_SHOP} (${catalog.length + 3} products)`);
  say(`  Demo API key    ${demo.apiKey}   (paste it in Settings → Connect with API key)`);
  say(`  Service sim     ${svcSim.url}`);
  say(`  Shop sim        ${shopSim.url}`);
  say(`  Caught emails   ${APP_URL}/app/sandbox-mail (SMTP ${mailSim.smtpUrl})`);
  say(`  Data            ${DATA_DIR} (fresh at every start)`);
  say("");
  say("  Ctrl+C stops it.");
}
