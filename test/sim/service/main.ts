/**
 * Starts a service simulator for manual use or another process:
 *   npx tsx test/sim/service/main.ts [--port 4010] [--loopback-webhooks] [--no-rate-limits]
 * Prints the base URL and a demo account's API key, then runs until interrupted.
 */
import { startServiceSim } from "./index";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sim = await startServiceSim({
  port: Number(arg("--port") ?? process.env.SVC_SIM_PORT ?? 0),
  allowLoopbackWebhooks:
    process.argv.includes("--loopback-webhooks") || process.env.SVC_SIM_LOOPBACK === "1",
  enforceRateLimits: !process.argv.includes("--no-rate-limits"),
});
const demo = sim.createAccount({
  apiKey: arg("--api-key") ?? "demo-api-key",
  balance: arg("--balance") ?? "1000.00",
  email: "demo@merchant.test",
});

console.log(`Service simulator listening at ${sim.url}`);
console.log(`API base:      ${sim.url}/api2.0/v1`);
console.log(`Admin API:     ${sim.url}/__sim/health`);
console.log(`Demo account:  ${demo.accountId} (openId ${demo.openId})`);
console.log(`Demo API key:  ${demo.apiKey}`);

const stop = () => {
  void sim.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
