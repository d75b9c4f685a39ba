/**
 * The settings page's one save bar (issue 35): its Save posts every changed form at once. Each
 * form is saved as if posted alone: a refused one changes nothing of its own, says why by
 * field, and does not stop the others; a post that is not a list of the page's forms changes
 * nothing at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAllSettings } from "../../app/settings-forms/save-all.server";
import { getSettings } from "../../app/settings.server";
import { type Harness, prisma, startHarness } from "../fulfilment/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ shopDomain: "settings-save-all.myshopify.com", balance: "42.00" });
});
afterAll(async () => {
  await h?.close();
});

const part = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
function post(...parts: string[]): FormData {
  const f = new FormData();
  f.set("intent", "save-all");
  for (const p of parts) f.append("part", p);
  return f;
}
const save = (form: FormData) =>
  saveAllSettings(prisma, h.shopDomain, form, { sandbox: true }) as Promise<{
    ok: boolean;
    intent: string;
    message?: string;
    errors?: Record<string, string>;
    results?: { ok: boolean; intent: string; message?: string; errors?: Record<string, string> }[];
  }>;

const pricing = {
  intent: "save-pricing",
  priceRule: "multiplier",
  priceValue: "3",
  priceRounding: "95",
  compareAtPct: "",
  repriceOnCostChange: "flag",
  repriceThresholdPct: "5",
  stockSync: "true",
  stockCountries: "",
  mainMarket: "DE",
};
const notifications = {
  intent: "save-notifications",
  notifyEmails: "merchant@example.com",
  notifyFailures: "true",
  notifyLowBalance: "true",
  notifyOutage: "false",
  notifyWebhooks: "true",
  notifyDisputes: "true",
  notifyHeldAfterMinutes: "15",
  notifyDigestMinutes: "60",
  lowBalanceUsd: "25",
};

describe("the settings page's save bar", () => {
  it("saves every changed form in one post and says what was saved", async () => {
    const r = await save(
      post(part(pricing), part(notifications), part({ intent: "save-fx", fxRates: "EUR 1.0812" })),
    );
    expect(r.ok).toBe(true);
    expect(r.results?.map((x) => [x.intent, x.ok])).toEqual([
      ["save-fx", true],
      ["save-pricing", true],
      ["save-notifications", true],
    ]);
    expect(r.message).toMatch(/Exchange rates saved.*Pricing saved.*Notification settings saved/);
    const s = await getSettings(prisma, h.shopDomain);
    expect(s.priceValue).toBe("3");
    expect(s.mainMarket).toBe("DE");
    expect(s.notifyEmails).toBe("merchant@example.com");
    expect(s.notifyOutage).toBe(false);
    expect(s.fxRates).toEqual({ EUR: "1.0812" });
  });

  it("saves the valid forms and refuses the invalid one by its field, changing nothing of it", async () => {
    const before = await getSettings(prisma, h.shopDomain);
    const r = await save(
      post(
        part({ ...notifications, notifyEmails: "not-an-address", lowBalanceUsd: "99" }),
        part({ ...pricing, priceValue: "4", mainMarket: "FR" }),
      ),
    );
    expect(r.ok).toBe(false);
    const [priced, told] = r.results!;
    expect(priced).toMatchObject({ ok: true, intent: "save-pricing" });
    expect(told).toMatchObject({ ok: false, intent: "save-notifications" });
    expect(Object.keys(told!.errors!)).toEqual(["notifyEmails"]);
    expect(r.message).toMatch(/^Pricing saved/);
    const after = await getSettings(prisma, h.shopDomain);
    expect(after.priceValue).toBe("4");
    expect(after.mainMarket).toBe("FR");
    // The refused form changed nothing, not even its valid fields.
    expect(after.notifyEmails).toBe(before.notifyEmails);
    expect(after.lowBalanceUsd).toBe(before.lowBalanceUsd);
  });

  it("changes nothing when the post is not a list of the page's forms", async () => {
    const before = await getSettings(prisma, h.shopDomain);
    const changed = { ...pricing, priceValue: "7" };
    for (const form of [
      post(),
      post(part(changed), part({ intent: "disconnect" })),
      post(part(changed), part({ ...pricing, priceValue: "8" })),
      post(...Array.from({ length: 6 }, () => part(changed))),
    ]) {
      const r = await save(form);
      expect(r.ok).toBe(false);
      expect(r.intent).toBe("save-all");
      expect(r.errors?.form).toBeTruthy();
      expect(r.results).toBeUndefined();
    }
    expect(await getSettings(prisma, h.shopDomain)).toEqual(before);
    // The account is still connected: a "disconnect" inside a save-all post was not run.
    expect(await prisma.svcAccount.count({ where: { shopDomain: h.shopDomain } })).toBe(1);
  });
});
