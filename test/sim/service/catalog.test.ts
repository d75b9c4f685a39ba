import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceSim, type ServiceSim } from "./index";
import { client } from "./test-helpers";

let sim: ServiceSim;
beforeAll(async () => {
  sim = await startServiceSim();
});
afterAll(() => sim.close());

describe("catalog", () => {
  it("is deterministic: two simulators hold the same products", async () => {
    const twin = await startServiceSim();
    try {
      expect(twin.state.catalog.products.map((p) => p.pid)).toEqual(
        sim.state.catalog.products.map((p) => p.pid),
      );
      // 300 generated products and the fixed three-option jacket.
      expect(sim.state.catalog.products.length).toBe(301);
      expect(sim.state.catalog.products.every((p) => p.variants.length > 0)).toBe(true);
    } finally {
      await twin.close();
    }
  });

  it("listV2: shape A, page ≤ 1000, size ≤ 100, totalRecords capped at 6000", async () => {
    const c = await client(sim);
    const page = await c.get("/product/listV2", { size: 5, page: 2 });
    expect(page.data).toMatchObject({
      pageSize: 5,
      pageNumber: 2,
      totalRecords: expect.any(Number),
      totalPages: expect.any(Number),
    });
    expect(page.data.content[0].productList).toHaveLength(5);
    expect(page.data.content[0].productList[0]).toMatchObject({
      id: expect.any(String),
      sellPrice: expect.stringMatching(/^\d+\.\d{2}$/),
    });
    expect((await c.get("/product/listV2", { size: 101 })).code).toBe(1600100);
    expect((await c.get("/product/listV2", { page: 1001 })).code).toBe(1600100);
    expect((await c.get("/product/listV2", { size: 0 })).code).toBe(1600100);

    const withCat = await c.get("/product/listV2", { size: 1, features: "enable_category" });
    expect(withCat.data.content[0].productList[0]).toHaveProperty("oneCategoryName");
    expect(page.data.content[0].productList[0]).not.toHaveProperty("oneCategoryName");

    const big = await startServiceSim({ catalogSize: 6200 });
    try {
      const bc = await client(big);
      const first = await bc.get("/product/listV2", { size: 100 });
      expect(first.data.totalRecords).toBe(6000);
      expect(first.data.totalPages).toBe(60);
      expect(
        (await bc.get("/product/listV2", { size: 100, page: 61 })).data.content[0].productList,
      ).toEqual([]);
    } finally {
      await big.close();
    }
  });

  it("list V1: shape B with pageSize ≤ 200", async () => {
    const c = await client(sim);
    const res = await c.get("/product/list", { pageSize: 3 });
    expect(res.data).toMatchObject({ pageNum: 1, pageSize: 3, total: expect.any(Number) });
    expect(res.data.list).toHaveLength(3);
    expect(typeof res.data.list[0].sellPrice).toBe("number");
    expect((await c.get("/product/list", { pageSize: 201 })).code).toBe(1600100);
  });

  it("product query needs exactly one identifier; variants by product and by vid", async () => {
    const c = await client(sim);
    const p = sim.state.catalog.products.find(
      (x) => !x.removed && x.variants.every((v) => !v.removed),
    );
    expect((await c.get("/product/query")).code).toBe(1600100);
    expect(
      (await c.get("/product/query", { pid: p?.pid ?? "", productSku: p?.sku ?? "" })).code,
    ).toBe(1600100);
    const detail = await c.get("/product/query", { productSku: p?.sku ?? "" });
    expect(detail.data).toMatchObject({ pid: p?.pid, productImageSet: expect.any(Array) });
    expect(detail.data.variants).toHaveLength(p?.variants.length ?? -1);
    expect(detail.data.variants[0].inventories).toEqual(expect.any(Array));

    const vs = await c.get("/product/variant/query", { pid: p?.pid ?? "" });
    expect(vs.data.map((v: { vid: string }) => v.vid)).toEqual(p?.variants.map((v) => v.vid));
    const one = await c.get("/product/variant/queryByVid", { vid: p?.variants[0]?.vid ?? "" });
    expect(one.data).toMatchObject({ vid: p?.variants[0]?.vid, pid: p?.pid });
    expect((await c.get("/product/variant/queryByVid", {})).code).toBe(1600100);

    const removed = sim.state.catalog.products.find((x) => x.removed);
    expect((await c.get("/product/query", { pid: removed?.pid ?? "" })).code).toBe(1602002);
  });

  it("addToMyProduct fails with 1600000 the second time", async () => {
    const c = await client(sim);
    const p = sim.state.catalog.products[1];
    const before = await c.get("/product/listV2", { keyWord: p?.sku ?? "" });
    expect(before.data.content[0].productList[0]).toMatchObject({ id: p?.pid, myProduct: false });
    expect((await c.post("/product/addToMyProduct", { productId: p?.pid })).data).toBe(true);
    expect((await c.post("/product/addToMyProduct", { productId: p?.pid })).code).toBe(1600000);
    const after = await c.get("/product/listV2", { keyWord: p?.sku ?? "" });
    expect(after.data.content[0].productList[0]).toMatchObject({ id: p?.pid, myProduct: true });
  });

  it("connections: create, list (total and list only), validation, delete", async () => {
    const c = await client(sim);
    const p = sim.state.catalog.products.find((x) => x.variants.length >= 2 && !x.removed);
    const [v1, v2] = p?.variants ?? [];
    const bad = await c.post("/product/conn/connection", {
      defaultArea: 1,
      logistics: "USPS",
      svcProductId: p?.pid,
      platformProductId: "gid-1",
      variantList: [],
    });
    expect(bad.code).toBe(1600100);
    const wrongVariant = await c.post("/product/conn/connection", {
      defaultArea: 1,
      logistics: "USPS",
      svcProductId: p?.pid,
      platformProductId: "gid-1",
      variantList: [{ svcVariantId: "nope", platformVariantId: "x" }],
    });
    expect(wrongVariant.code).toBe(1600100);
    const ok = await c.post("/product/conn/connection", {
      defaultArea: 1,
      logistics: "USPS",
      svcProductId: p?.pid,
      platformProductId: "gid-1",
      variantList: [
        { svcVariantId: v1?.vid, platformVariantId: "gv-1" },
        { svcVariantId: v2?.vid, platformVariantId: "gv-2" },
      ],
    });
    expect(ok.data).toBe(true);
    const list = await c.get("/product/conn/connection", { pageSize: 10 });
    expect(Object.keys(list.data).sort()).toEqual(["list", "total"]);
    expect(list.data.total).toBe(2);
    expect((await c.get("/product/conn/connection", { pageSize: 101 })).code).toBe(1600100);
    expect((await c.del("/product/conn/connection", {})).code).toBe(1600100);
    expect(
      (
        await c.del("/product/conn/connection", {
          platformProductId: "gid-1",
          platformVariantId: "gv-1",
        })
      ).data,
    ).toBe(true);
    expect((await c.get("/product/conn/connection")).data.total).toBe(1);
    await c.del("/product/conn/connection", { platformProductId: "gid-1" });
    expect((await c.get("/product/conn/connection")).data.total).toBe(0);
  });

  it("warehouse detail, private inventory and categories", async () => {
    const c = await client(sim);
    expect((await c.get("/warehouse/detail", { id: "STG-US-1" })).data).toMatchObject({
      id: "STG-US-1",
      areaCountryCode: "US",
      logisticsBrandList: expect.any(Array),
    });
    expect((await c.get("/warehouse/detail", { id: "nope" })).code).toBe(1608001);
    expect((await c.get("/warehouse/detail")).code).toBe(1600100);
    const spu = await c.post("/product/stock/privateInventory/querySpuPage", { pageSize: 2 });
    expect(spu.data).toMatchObject({
      pageSize: 2,
      pageNumber: 1,
      totalRecords: expect.any(Number),
      content: expect.any(Array),
    });
    expect((await c.post("/product/stock/privateInventory/querySkuListByProductId", {})).code).toBe(
      1600100,
    );
    const cats = await c.get("/product/getCategory");
    expect(cats.data[0].categoryFirstList[0].categorySecondList[0]).toMatchObject({
      categoryId: expect.any(String),
      categoryName: expect.any(String),
    });
  });
});
