/**
 * The shop simulator is at least as strict as Shopify's Admin API (2026-10): documents are
 * validated against the published schema, variables coerced against the real input types, the
 * requested cost is capped and throttled per shop, scopes and protected customer data apply,
 * and fulfilment orders follow Shopify's statuses, actions, holds and visibility rules.
 */
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestedCost } from "./admin-schema";
import { type ShopSim, type SimOrder, startShopSim } from "./server";
import { DEFAULT_SCOPES } from "./state";

let sim: ShopSim;
let n = 0;

beforeAll(async () => {
  sim = await startShopSim();
});
afterAll(() => sim.close());

/** A fresh shop (its own bucket, scopes and data) and a client for it. */
function newShop() {
  const domain = `strict-${++n}.myshopify.com`;
  const { accessToken } = sim.addShop(domain);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL replies are untyped JSON
  const gql = async (query: string, variables: Record<string, unknown> = {}): Promise<any> => {
    const res = await fetch(`${sim.url}/admin/api/2026-10/graphql.json`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Sim-Shop-Domain": domain,
        "X-Shopify-Access-Token": accessToken,
      },
      body: JSON.stringify({ query, variables }),
    });
    expect(res.status).toBe(200);
    return res.json();
  };
  const product = (variants = 1, title = "Tee") =>
    sim.addProduct(domain, {
      title,
      variants: Array.from({ length: variants }, (_, i) => ({
        sku: `${title}-${i}`,
        price: "10.00",
        title: `V${i}`,
      })),
    });
  return { domain, gql, product };
}

const FO_ACTIONS = `query FO($id: ID!) {
  order(id: $id) {
    fulfillmentOrders(first: 10) {
      nodes { id status fulfillAt supportedActions { action } fulfillmentHolds { reason reasonNotes } }
    }
  }
}`;

const CREATE = `mutation CreateFulfillment($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) {
    fulfillment { id status }
    userErrors { field message }
  }
}`;

// The app's GetOrder before issue #12: 250 lines and 50 fulfilment orders of 250 lines each.
const OLD_GET_ORDER = `query GetOrder($id: ID!) {
  order(id: $id) {
    id name email
    shippingAddress { firstName lastName city }
    lineItems(first: 250) {
      nodes {
        id title sku quantity
        image { url }
        product { id }
        variant { id selectedOptions { name value } }
        originalUnitPriceSet { shopMoney { amount currencyCode } }
      }
      pageInfo { hasNextPage endCursor }
    }
    fulfillmentOrders(first: 50) {
      nodes {
        id status
        assignedLocation { location { id } }
        lineItems(first: 250) { nodes { id remainingQuantity totalQuantity lineItem { id } } }
      }
    }
    fulfillments(first: 50) {
      id status
      trackingInfo(first: 10) { number url company }
      fulfillmentLineItems(first: 250) { nodes { id quantity lineItem { id } } }
    }
  }
}`;

describe("documents and variables", () => {
  it("refuses a document that does not parse, with no data", async () => {
    const { gql } = newShop();
    const r = await gql("{ products(first: 1) { nodes { id } }");
    expect(r.data).toBeUndefined();
    expect(r.errors[0]).toMatchObject({
      message: expect.stringContaining("Syntax Error"),
      locations: [{ line: 1, column: expect.any(Number) }],
      extensions: { code: "PARSE_ERROR" },
    });
  });

  it("refuses unknown arguments and fields of the real schema, in Shopify's words", async () => {
    const { gql } = newShop();
    const r = await gql("{ products(first: 1, colour: RED) { nodes { id sizeChart } } }");
    expect(r.data).toBeUndefined();
    expect(r.errors.map((e: { message: string }) => e.message)).toEqual([
      "Field 'products' doesn't accept argument 'colour'",
      "Field 'sizeChart' doesn't exist on type 'Product'",
    ]);
    expect(r.errors[1].extensions).toMatchObject({
      code: "undefinedField",
      typeName: "Product",
      fieldName: "sizeChart",
    });
  });

  it("coerces variables against the real input types: unknown input fields and wrong types are INVALID_VARIABLE, and nothing runs", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 2 }],
    });
    const fo = o.fulfillmentOrders[0]!;
    const unknownField = await gql(CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }],
        trackingNumber: "N1",
      },
    });
    expect(unknownField.data).toBeUndefined();
    expect(unknownField.errors).toEqual([
      {
        message:
          "Variable $fulfillment of type FulfillmentInput! was provided invalid value for trackingNumber (Field is not defined on FulfillmentInput)",
        locations: [{ line: 1, column: 28 }],
        extensions: {
          code: "INVALID_VARIABLE",
          value: expect.any(Object),
          problems: [
            { path: ["trackingNumber"], explanation: "Field is not defined on FulfillmentInput" },
          ],
        },
      },
    ]);
    const wrongType = await gql(CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: fo.id,
            fulfillmentOrderLineItems: [{ id: fo.lineItems[0]!.id, quantity: "two" }],
          },
        ],
      },
    });
    expect(wrongType.errors[0].extensions.code).toBe("INVALID_VARIABLE");
    expect(wrongType.errors[0].extensions.problems[0].path).toEqual([
      "lineItemsByFulfillmentOrder",
      0,
      "fulfillmentOrderLineItems",
      0,
      "quantity",
    ]);
    const missing = await gql(CREATE, {
      fulfillment: { lineItemsByFulfillmentOrder: [{}] },
    });
    expect(missing.errors[0].extensions.problems).toEqual([
      {
        path: ["lineItemsByFulfillmentOrder", 0, "fulfillmentOrderId"],
        explanation: "Expected value to not be null",
      },
    ]);
    expect(sim.fulfillments(domain, o.id)).toEqual([]);
  });

  it("a field the simulator does not implement fails loudly by name, before anything runs", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
    });
    const r = await gql(
      `query Q($id: ID!) { order(id: $id) { id customerJourneySummary { ready } } }`,
      {
        id: o.id,
      },
    );
    expect(r.data).toBeUndefined();
    expect(r.errors).toEqual([
      expect.objectContaining({
        message: "Order.customerJourneySummary is not implemented by the shop simulator",
        path: ["order", "customerJourneySummary"],
      }),
    ]);
  });

  it("input arrays hold at most 250 items (MAX_INPUT_SIZE_EXCEEDED), and connections take first or last between 0 and 250", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
    });
    const fo = o.fulfillmentOrders[0]!;
    const r = await gql(CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: fo.id,
            fulfillmentOrderLineItems: Array.from({ length: 251 }, () => ({
              id: fo.lineItems[0]!.id,
              quantity: 1,
            })),
          },
        ],
      },
    });
    expect(r.data).toBeUndefined();
    expect(r.errors[0]).toMatchObject({
      message: "The input array size of 251 is greater than the maximum allowed of 250.",
      extensions: { code: "MAX_INPUT_SIZE_EXCEEDED" },
    });
    expect(sim.fulfillments(domain, o.id)).toEqual([]);
    const noFirst = await gql("{ products { nodes { id } } }");
    expect(noFirst.errors[0].message).toBe("you must provide one of first or last");
    const tooMany = await gql("{ locations(last: 251) { nodes { id } } }");
    expect(tooMany.errors[0].message).toBe("The last argument must be between 0 and 250");
    expect(tooMany.data).toBeUndefined();
  });
});

describe("cost and throttle", () => {
  it("a query over 1,000 points (the app's old GetOrder, over 50,000) is MAX_COST_EXCEEDED and does not run", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
    });
    const cost = requestedCost(parse(OLD_GET_ORDER), { id: o.id });
    expect(cost).toBeGreaterThan(50_000);
    const r = await gql(OLD_GET_ORDER, { id: o.id });
    expect(r.data).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(
      new RegExp(
        `^Query cost is ${cost}, which exceeds the single query max cost limit \\(1000\\)\\.`,
      ),
    );
    expect(r.errors[0].extensions).toEqual({
      code: "MAX_COST_EXCEEDED",
      cost,
      maxCost: 1000,
    });
    expect(r.extensions.cost).toMatchObject({ requestedQueryCost: cost, actualQueryCost: null });
    // Nothing was charged.
    expect(r.extensions.cost.throttleStatus.currentlyAvailable).toBe(2000);
  });

  it("every reply carries extensions.cost; the bucket is charged the requested cost and refunded down to the actual one", async () => {
    const { domain, gql, product } = newShop();
    for (let i = 0; i < 3; i++) product(1, `P${i}`);
    sim.setThrottle(domain, { maximumAvailable: 2000, restoreRate: 0.001 });
    const r = await gql("query Few { products(first: 50) { nodes { id title } } }");
    expect(r.data.products.nodes).toHaveLength(3);
    expect(r.extensions.cost).toEqual({
      requestedQueryCost: 52,
      actualQueryCost: 5, // the connection 2 + the 3 products returned
      throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1995, restoreRate: 0.001 },
    });
    expect(sim.graphqlCalls().at(-1)).toMatchObject({
      shop: domain,
      operationName: "Few",
      requestedQueryCost: 52,
      actualQueryCost: 5,
    });
  });

  it("THROTTLED when the bucket holds less than the requested cost; the query runs once it has refilled", async () => {
    const { domain, gql, product } = newShop();
    for (let i = 0; i < 10; i++) product(1, `T${i}`);
    const q = "{ products(first: 10) { nodes { id } } }"; // 12 requested, 12 actual
    sim.setThrottle(domain, { maximumAvailable: 20, restoreRate: 0.01 });
    const first = await gql(q);
    expect(first.data.products.nodes).toHaveLength(10);
    expect(first.extensions.cost.throttleStatus.currentlyAvailable).toBe(8);
    const throttled = await gql(q);
    expect(throttled.data).toBeUndefined();
    expect(throttled.errors).toEqual([
      {
        message: "Throttled",
        extensions: {
          code: "THROTTLED",
          documentation: "https://shopify.dev/api/usage/rate-limits",
        },
      },
    ]);
    expect(throttled.extensions.cost).toEqual({
      requestedQueryCost: 12,
      actualQueryCost: null,
      throttleStatus: { maximumAvailable: 20, currentlyAvailable: 8, restoreRate: 0.01 },
    });
    // A fast restore rate refills the (empty) bucket: the same query then runs.
    sim.setThrottle(domain, { maximumAvailable: 20, restoreRate: 1000, currentlyAvailable: 0 });
    let after = await gql(q);
    for (let i = 0; i < 50 && after.errors; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await gql(q);
    }
    expect(after.errors).toBeUndefined();
    expect(after.data.products.nodes).toHaveLength(10);
  });

  it("the throttleNext knob still answers THROTTLED with the cost", async () => {
    const { domain, gql } = newShop();
    sim.throttleNext(domain, 1);
    const r = await gql("{ products(first: 1) { nodes { id } } }");
    expect(r.errors[0].extensions.code).toBe("THROTTLED");
    expect(r.extensions.cost.throttleStatus).toEqual({
      maximumAvailable: 2000,
      currentlyAvailable: 0,
      restoreRate: 100,
    });
    expect((await gql("{ products(first: 1) { nodes { id } } }")).errors).toBeUndefined();
  });
});

describe("scopes and protected customer data", () => {
  const LOCATION = `query L($id: ID!) {
    order(id: $id) {
      fulfillmentOrders(first: 5) { nodes { id assignedLocation { name location { id } } } }
    }
  }`;

  it("ACCESS_DENIED for assignedLocation { location { id } } without read_locations, the rest answered; with it, the id", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
    });
    sim.setScopes(
      domain,
      // read_inventory grants Location too: an install without either.
      DEFAULT_SCOPES.filter(
        (s) => !["read_locations", "read_inventory", "write_inventory"].includes(s),
      ),
    );
    const denied = await gql(LOCATION, { id: o.id });
    expect(denied.data.order.fulfillmentOrders.nodes).toEqual([
      {
        id: o.fulfillmentOrders[0]!.id,
        assignedLocation: { name: "Shop location", location: null },
      },
    ]);
    expect(denied.errors).toEqual([
      {
        message: expect.stringMatching(
          /^Access denied for location field\. Required access: .*`read_locations` access scope/,
        ),
        locations: [expect.any(Object)],
        path: ["order", "fulfillmentOrders", "nodes", 0, "assignedLocation", "location"],
        extensions: {
          code: "ACCESS_DENIED",
          documentation: "https://shopify.dev/api/usage/access-scopes",
          requiredAccess: expect.stringContaining("`read_locations` access scope"),
        },
      },
    ]);
    sim.setScopes(domain, DEFAULT_SCOPES);
    const allowed = await gql(LOCATION, { id: o.id });
    expect(allowed.errors).toBeUndefined();
    expect(allowed.data.order.fulfillmentOrders.nodes[0].assignedLocation.location).toEqual({
      id: o.fulfillmentOrders[0]!.locationId,
    });
  });

  it("a mutation the scopes cannot run is null with ACCESS_DENIED, and changes nothing", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
    });
    sim.setScopes(domain, ["read_orders", "read_merchant_managed_fulfillment_orders"]);
    const r = await gql(CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: o.fulfillmentOrders[0]!.id }],
      },
    });
    expect(r.data).toEqual({ fulfillmentCreate: null });
    expect(r.errors[0]).toMatchObject({
      path: ["fulfillmentCreate"],
      extensions: { code: "ACCESS_DENIED" },
    });
    expect(sim.fulfillments(domain, o.id)).toEqual([]);
  });

  it("protected customer data is null (no error) until the shop grants it", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
    });
    const q = `query P($id: ID!) {
      order(id: $id) { name email shippingAddress { firstName lastName address1 zip phone city countryCodeV2 } }
    }`;
    sim.setProtectedCustomerData(domain, false);
    const redacted = await gql(q, { id: o.id });
    expect(redacted.errors).toBeUndefined();
    expect(redacted.data.order).toEqual({
      name: o.name,
      email: null,
      shippingAddress: {
        firstName: null,
        lastName: null,
        address1: null,
        zip: null,
        phone: null,
        city: "Springfield",
        countryCodeV2: "US",
      },
    });
    sim.setProtectedCustomerData(domain, { level: 2, fields: ["email"] });
    const emailOnly = await gql(q, { id: o.id });
    expect(emailOnly.data.order.email).toBe("customer@example.com");
    expect(emailOnly.data.order.shippingAddress.firstName).toBeNull();
    sim.setProtectedCustomerData(domain, true);
    const granted = await gql(q, { id: o.id });
    expect(granted.data.order.shippingAddress).toMatchObject({ firstName: "Ada", zip: "62701" });
  });
});

describe("fulfilment orders as Shopify has them", () => {
  const actionsOf = async (
    gql: ReturnType<typeof newShop>["gql"],
    o: SimOrder,
  ): Promise<{ status: string; fulfillAt: string | null; actions: string[]; holds: unknown[] }> => {
    const r = await gql(FO_ACTIONS, { id: o.id });
    const node = r.data.order.fulfillmentOrders.nodes[0];
    return {
      status: node.status,
      fulfillAt: node.fulfillAt,
      actions: node.supportedActions.map((a: { action: string }) => a.action),
      holds: node.fulfillmentHolds,
    };
  };

  it("each of the seven statuses has its supportedActions; only OPEN and IN_PROGRESS can be fulfilled", async () => {
    const { domain, gql, product } = newShop();
    const p = product();
    const expected: Record<string, string[]> = {
      OPEN: ["CREATE_FULFILLMENT", "HOLD", "MOVE", "SPLIT", "CANCEL_FULFILLMENT_ORDER"],
      IN_PROGRESS: ["CREATE_FULFILLMENT", "HOLD", "MOVE", "SPLIT"],
      ON_HOLD: ["RELEASE_HOLD"],
      SCHEDULED: ["MARK_AS_OPEN"],
      CLOSED: [],
      CANCELLED: [],
      INCOMPLETE: [],
    };
    for (const [status, actions] of Object.entries(expected)) {
      const o = sim.placeOrder(domain, { lines: [{ variantId: p.variants[0]!.id, quantity: 1 }] });
      const foId = o.fulfillmentOrders[0]!.id;
      const view = sim.setFulfillmentOrderStatus(domain, foId, status as never);
      expect(view.fulfillmentOrders[0]!.supportedActions).toEqual(actions);
      expect(await actionsOf(gql, o)).toMatchObject({ status, actions });
      const r = await gql(CREATE, {
        fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: foId }] },
      });
      if (actions.includes("CREATE_FULFILLMENT")) {
        expect(r.data.fulfillmentCreate.userErrors).toEqual([]);
        expect(sim.order(domain, o.id).fulfillmentOrders[0]!.status).toBe("CLOSED");
      } else {
        expect(r.data.fulfillmentCreate).toEqual({
          fulfillment: null,
          userErrors: [
            {
              field: ["fulfillment"],
              message: `Fulfillment order ${foId.split("/").pop()} has an unfulfillable status= ${status.toLowerCase()}.`,
            },
          ],
        });
        expect(sim.fulfillments(domain, o.id)).toEqual([]);
      }
    }
  });

  it("fulfillmentCreate is refused on ON_HOLD (with its holds shown) and accepted after the hold is released", async () => {
    const { domain, gql, product } = newShop();
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 2 }],
    });
    const fo = o.fulfillmentOrders[0]!;
    sim.holdFulfillmentOrder(domain, fo.id, "HIGH_RISK_OF_FRAUD");
    expect(await actionsOf(gql, o)).toEqual({
      status: "ON_HOLD",
      fulfillAt: null,
      actions: ["RELEASE_HOLD"],
      holds: [{ reason: "HIGH_RISK_OF_FRAUD", reasonNotes: null }],
    });
    const input = {
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: fo.id,
            fulfillmentOrderLineItems: [{ id: fo.lineItems[0]!.id, quantity: 1 }],
          },
        ],
      },
    };
    const refused = await gql(CREATE, input);
    expect(refused.data.fulfillmentCreate.userErrors[0].message).toMatch(
      /unfulfillable status= on_hold\.$/,
    );
    expect(sim.fulfillments(domain, o.id)).toEqual([]);
    sim.releaseFulfillmentOrderHold(domain, fo.id);
    const accepted = await gql(CREATE, input);
    expect(accepted.data.fulfillmentCreate.userErrors).toEqual([]);
    expect(sim.order(domain, o.id).fulfillmentOrders[0]).toMatchObject({
      status: "IN_PROGRESS",
      supportedActions: expect.arrayContaining(["CREATE_FULFILLMENT"]),
    });
    // Held again while IN_PROGRESS, released back to IN_PROGRESS — through the Admin API.
    const hold = await gql(
      `mutation H($id: ID!, $h: FulfillmentOrderHoldInput!) {
        fulfillmentOrderHold(id: $id, fulfillmentHold: $h) {
          fulfillmentOrder { status } fulfillmentHold { reason } userErrors { field message }
        }
      }`,
      { id: fo.id, h: { reason: "INVENTORY_OUT_OF_STOCK", reasonNotes: "later" } },
    );
    expect(hold.data.fulfillmentOrderHold).toEqual({
      fulfillmentOrder: { status: "ON_HOLD" },
      fulfillmentHold: { reason: "INVENTORY_OUT_OF_STOCK" },
      userErrors: [],
    });
    const release = await gql(
      `mutation R($id: ID!) { fulfillmentOrderReleaseHold(id: $id) { fulfillmentOrder { status } userErrors { message } } }`,
      { id: fo.id },
    );
    expect(release.data.fulfillmentOrderReleaseHold).toEqual({
      fulfillmentOrder: { status: "IN_PROGRESS" },
      userErrors: [],
    });
  });

  it("a scheduled order is SCHEDULED with its fulfillAt until opened, or until that time comes", async () => {
    const { domain, gql, product } = newShop();
    const at = "2030-01-01T00:00:00.000Z";
    const o = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
      fulfillAt: at,
    });
    expect(await actionsOf(gql, o)).toMatchObject({
      status: "SCHEDULED",
      fulfillAt: at,
      actions: ["MARK_AS_OPEN"],
    });
    sim.openScheduledFulfillmentOrder(domain, o.fulfillmentOrders[0]!.id);
    expect(await actionsOf(gql, o)).toMatchObject({
      status: "OPEN",
      fulfillAt: null,
      actions: expect.arrayContaining(["CREATE_FULFILLMENT"]),
    });
    // One whose fulfillAt has passed is open when next read.
    const due = sim.placeOrder(domain, {
      lines: [{ variantId: product().variants[0]!.id, quantity: 1 }],
      fulfillAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(await actionsOf(gql, due)).toMatchObject({ status: "OPEN", fulfillAt: null });
  });

  it("fulfillmentCreate refuses fulfilment orders of different locations, and quantities over what remains", async () => {
    const { domain, gql, product } = newShop();
    sim.addLocation(domain, { name: "Warehouse" });
    const p = product(2);
    const o = sim.placeOrder(domain, {
      lines: [
        { variantId: p.variants[0]!.id, quantity: 1 },
        { variantId: p.variants[1]!.id, quantity: 1, location: "Warehouse" },
      ],
    });
    expect(o.fulfillmentOrders).toHaveLength(2);
    const two = await gql(CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: o.fulfillmentOrders.map((f) => ({ fulfillmentOrderId: f.id })),
      },
    });
    expect(two.data.fulfillmentCreate.userErrors).toEqual([
      {
        field: ["fulfillment"],
        message: "All fulfillment orders must be assigned to the same location.",
      },
    ]);
    const fo = o.fulfillmentOrders[0]!;
    const over = await gql(CREATE, {
      fulfillment: {
        lineItemsByFulfillmentOrder: [
          {
            fulfillmentOrderId: fo.id,
            fulfillmentOrderLineItems: [{ id: fo.lineItems[0]!.id, quantity: 2 }],
          },
        ],
      },
    });
    expect(over.data.fulfillmentCreate.userErrors[0].message).toBe(
      "Invalid fulfillment order line item quantity requested.",
    );
    expect(sim.fulfillments(domain, o.id)).toEqual([]);
  });

  it("fulfilment orders at a fulfilment-service location are invisible with merchant-managed scopes only", async () => {
    const { domain, gql, product } = newShop();
    const fs = sim.addLocation(domain, { name: "Service DC", fulfillmentService: true });
    expect(fs.id).toMatch(/^gid:\/\/shopify\/Location\/\d+$/);
    const p = product(2);
    const o = sim.placeOrder(domain, {
      lines: [
        { variantId: p.variants[0]!.id, quantity: 1 },
        { variantId: p.variants[1]!.id, quantity: 1, location: "Service DC" },
      ],
    });
    const serviceFo = o.fulfillmentOrders.find((f) => f.locationId === fs.id)!;
    const own = o.fulfillmentOrders.find((f) => f.locationId !== fs.id)!;
    const list = `query L($id: ID!) { order(id: $id) { fulfillmentOrders(first: 10) { nodes { id } } } }`;
    const one = `query F($id: ID!) { fulfillmentOrder(id: $id) { id status } }`;
    expect((await gql(list, { id: o.id })).data.order.fulfillmentOrders.nodes).toEqual([
      { id: own.id },
    ]);
    expect((await gql(one, { id: serviceFo.id })).data).toEqual({ fulfillmentOrder: null });
    const create = await gql(CREATE, {
      fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: serviceFo.id }] },
    });
    expect(create.data.fulfillmentCreate.userErrors[0].message).toBe(
      "Fulfillment order does not exist.",
    );
    sim.setScopes(domain, [...DEFAULT_SCOPES, "read_assigned_fulfillment_orders"]);
    expect((await gql(list, { id: o.id })).data.order.fulfillmentOrders.nodes).toHaveLength(2);
    expect((await gql(one, { id: serviceFo.id })).data.fulfillmentOrder).toEqual({
      id: serviceFo.id,
      status: "OPEN",
    });
  });

  it("an order of 300 lines over 30 fulfilment orders at 3 locations is read completely in pages", async () => {
    const { domain, gql, product } = newShop();
    sim.addLocation(domain, { name: "East" });
    sim.addLocation(domain, { name: "West" });
    const p = product(250, "Big");
    const q = product(50, "More");
    const variants = [...p.variants, ...q.variants];
    const o = sim.placeOrder(domain, {
      lines: variants.map((v, i) => ({
        variantId: v.id,
        quantity: 1 + (i % 3),
        location: [undefined, "East", "West"][i % 3],
      })),
      fulfillmentOrdersPerLocation: 10,
    });
    expect(o.lineItems).toHaveLength(300);
    expect(o.fulfillmentOrders).toHaveLength(30);

    // Every line item, 100 at a time.
    const lines: string[] = [];
    let after: string | null = null;
    do {
      const r = await gql(
        `query Lines($id: ID!, $after: String) {
          order(id: $id) { lineItems(first: 100, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }
        }`,
        { id: o.id, after },
      );
      expect(r.errors).toBeUndefined();
      const page = r.data.order.lineItems;
      lines.push(...page.nodes.map((x: { id: string }) => x.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(lines).toEqual(o.lineItems.map((l) => l.id));

    // Every fulfilment order, 8 at a time, each with its first 4 lines; then the rest of its lines.
    const foLines = new Map<string, string[]>();
    after = null;
    do {
      const r = await gql(
        `query FOs($id: ID!, $after: String) {
          order(id: $id) {
            fulfillmentOrders(first: 8, after: $after) {
              nodes {
                id
                assignedLocation { location { id } }
                lineItems(first: 4) { nodes { id lineItem { id } } pageInfo { hasNextPage endCursor } }
              }
              pageInfo { hasNextPage endCursor }
            }
          }
        }`,
        { id: o.id, after },
      );
      expect(r.errors).toBeUndefined();
      expect(r.extensions.cost.requestedQueryCost).toBeLessThanOrEqual(1000);
      const page = r.data.order.fulfillmentOrders;
      for (const fo of page.nodes) {
        const ids = fo.lineItems.nodes.map((x: { lineItem: { id: string } }) => x.lineItem.id);
        let more: string | null = fo.lineItems.pageInfo.hasNextPage
          ? fo.lineItems.pageInfo.endCursor
          : null;
        while (more) {
          const m = await gql(
            `query More($id: ID!, $after: String) {
              fulfillmentOrder(id: $id) { lineItems(first: 3, after: $after) { nodes { lineItem { id } } pageInfo { hasNextPage endCursor } } }
            }`,
            { id: fo.id, after: more },
          );
          const li = m.data.fulfillmentOrder.lineItems;
          ids.push(...li.nodes.map((x: { lineItem: { id: string } }) => x.lineItem.id));
          more = li.pageInfo.hasNextPage ? li.pageInfo.endCursor : null;
        }
        foLines.set(fo.id, ids);
      }
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect([...foLines.keys()]).toEqual(o.fulfillmentOrders.map((f) => f.id));
    expect([...foLines.values()].flat().sort()).toEqual(o.lineItems.map((l) => l.id).sort());
    for (const fo of o.fulfillmentOrders)
      expect(foLines.get(fo.id)).toEqual(fo.lineItems.map((l) => l.lineItemId));

    // Backwards: the last page of fulfilment orders, then the one before it.
    const back = await gql(
      `query Back($id: ID!, $before: String) {
        order(id: $id) { fulfillmentOrders(last: 25, before: $before) { nodes { id } pageInfo { hasPreviousPage startCursor } } }
      }`,
      { id: o.id, before: null },
    );
    const last = back.data.order.fulfillmentOrders;
    expect(last.nodes.map((x: { id: string }) => x.id)).toEqual(
      o.fulfillmentOrders.slice(5).map((f) => f.id),
    );
    expect(last.pageInfo.hasPreviousPage).toBe(true);
    const before = await gql(
      `query Back($id: ID!, $before: String) {
        order(id: $id) { fulfillmentOrders(last: 25, before: $before) { nodes { id } pageInfo { hasPreviousPage } } }
      }`,
      { id: o.id, before: last.pageInfo.startCursor },
    );
    expect(before.data.order.fulfillmentOrders.nodes.map((x: { id: string }) => x.id)).toEqual(
      o.fulfillmentOrders.slice(0, 5).map((f) => f.id),
    );
    expect(before.data.order.fulfillmentOrders.pageInfo.hasPreviousPage).toBe(false);
  });
});
