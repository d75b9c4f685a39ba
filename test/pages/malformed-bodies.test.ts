/**
 * A body that is not a form, posted to a page's action with a valid sign-in, is a 400 and
 * changes nothing (issue 37): JSON on a form route, multipart without its boundary, multipart
 * cut short. Signed in by the sandbox cookie (SANDBOX=1, as `npm run sandbox` runs).
 */
import type { PrismaClient } from "@prisma/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceSim } from "../sim/service";
import { callRoute } from "../helpers/remix";
import { installSandboxShop, startSandboxPages, type Route, UA } from "../helpers/sandbox-shop";

const SHOP = "malformed-bodies.myshopify.com";

let sim: ServiceSim;
let prisma: PrismaClient;
let cookie: string;
const actions: Record<string, Route> = {};

async function post(path: string, route: Route, headers: Record<string, string>, body: string) {
  const r = await callRoute(
    route,
    new Request(`http://localhost:3000${path}`, {
      method: "POST",
      headers: { "user-agent": UA, cookie, ...headers },
      body,
    }),
  );
  return { status: r.status, text: await r.text() };
}

beforeAll(async () => {
  ({ sim, prisma } = await startSandboxPages());
  const load = async (name: string) =>
    ((await import(`../../app/routes/${name}.tsx`)) as { action: Route }).action;
  for (const name of [
    "app.settings",
    "app.catalog",
    "app.products",
    "app.orders._index",
    "app.orders.$id",
    "app.sandbox",
    "app.disputes.new",
    "app.disputes.$id",
  ])
    actions[name] = await load(name);
  await installSandboxShop(prisma, SHOP);
  const signin = (await import("../../app/routes/sandbox.signin")).loader as Route;
  const r = await callRoute(
    signin,
    new Request("http://localhost:3000/sandbox/signin", { headers: { "user-agent": UA } }),
  );
  cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
  expect(cookie).toMatch(/^sandbox_shop=/);
});
afterAll(async () => {
  await sim?.close();
});

const BOUNDARY = "----cut-short";
const bodies: [string, Record<string, string>, string][] = [
  ["JSON on a form route", { "content-type": "application/json" }, '{"intent":"save-all"}'],
  ["multipart without its boundary", { "content-type": "multipart/form-data" }, "intent=x"],
  [
    "multipart cut short",
    { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="intent"\r\n\r\nsave`,
  ],
];

describe("a body that is not a form", () => {
  it("is a 400 on every page's action, and changes nothing", async () => {
    const settingsBefore = await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } });
    const got: string[] = [];
    for (const [name, action] of Object.entries(actions))
      for (const [what, headers, body] of bodies) {
        const path = `/${name.replace(/\./g, "/").replace("$id", "x1").replace("/_index", "")}`;
        const r = await post(path, action, headers, body);
        got.push(`${name} ${what}: ${r.status}`);
      }
    expect(got.filter((g) => !g.endsWith(": 400"))).toEqual([]);
    expect(await prisma.shop.findUniqueOrThrow({ where: { domain: SHOP } })).toEqual(
      settingsBefore,
    );
  });
});
