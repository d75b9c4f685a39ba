/**
 * Starts a shop simulator: `npm run sim:shop` (PORT, SHOPIFY_API_SECRET, SHOPIFY_APP_URL,
 * SIM_SHOP to pre-install a shop, SIM_SHOP_TOKEN for its token). Prints its URL and, with
 * SIM_SHOP, the shop's access token as JSON on one line.
 */
import { startShopSim } from "./server";

const sim = await startShopSim({
  port: process.env.PORT ? Number(process.env.PORT) : 0,
  apiSecret: process.env.SHOPIFY_API_SECRET ?? "test-api-secret",
  appUrl: process.env.SHOPIFY_APP_URL,
  host: process.env.HOST,
});
const shop = process.env.SIM_SHOP
  ? sim.addShop(process.env.SIM_SHOP, { accessToken: process.env.SIM_SHOP_TOKEN })
  : undefined;
console.log(
  JSON.stringify({
    url: sim.url,
    ...(shop ? { shop: shop.domain, accessToken: shop.accessToken } : {}),
  }),
);

const stop = () => void sim.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
