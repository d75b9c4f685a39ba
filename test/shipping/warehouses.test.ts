/**
 * The ship-from choices (app/shipping/warehouses.server.ts): the service's global warehouse
 * records become one enabled choice per country code, named; without an account the reason is
 * said in plain words.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "../../app/db.server";
import { listWarehouses, toWarehouses } from "../../app/shipping/warehouses.server";
import type { GlobalWarehouse } from "../../app/svc/catalog-shapes";

const rec = (o: Partial<GlobalWarehouse>): GlobalWarehouse =>
  ({ areaId: 1, id: "1", disabled: false, ...o }) as GlobalWarehouse;

describe("toWarehouses", () => {
  it("keeps enabled warehouses, one per country code, sorted by name, with fallbacks for names", () => {
    expect(
      toWarehouses([
        rec({ countryCode: "us", areaEn: "United States Warehouse", nameEn: "United States" }),
        rec({ countryCode: "DE", areaEn: "Germany Warehouse", nameEn: "Germany", disabled: true }),
        rec({ countryCode: "CN", areaEn: "China Warehouse", nameEn: "China" }),
        rec({ countryCode: "CN", areaEn: "China Warehouse 2", nameEn: "China" }),
        rec({ countryCode: null as never, valueEn: "TH", nameEn: "Thailand" }),
        rec({ countryCode: "GB", areaEn: " ", nameEn: null as never }),
        rec({ countryCode: "XYZ", areaEn: "Bad code" }),
        rec({ countryCode: "", valueEn: "" }),
      ]),
    ).toEqual([
      { code: "CN", name: "China Warehouse", country: "China" },
      { code: "GB", name: "GB warehouse", country: "GB" },
      { code: "TH", name: "Thailand warehouse", country: "Thailand" },
      { code: "US", name: "United States Warehouse", country: "United States" },
    ]);
  });
});

describe("listWarehouses", () => {
  // The database's first answer (schema set-up) belongs to a hook, not to the test's time.
  beforeAll(async () => {
    await prisma.svcAccount.count();
  });

  it("without a service account: the reason, no call", async () => {
    expect(await listWarehouses(prisma, "no-account.myshopify.com")).toEqual({
      ok: false,
      reason: "Connect a service account to choose from the service's warehouses.",
    });
  });
});
