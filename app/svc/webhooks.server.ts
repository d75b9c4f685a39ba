/**
 * The service's webhook settings (webhook/set): one section per event family (product, stock,
 * order, logistics), each enabled with one callback address or cancelled.
 */
import { STORAGE_OPS } from "./storage.server";
import { bool } from "./schema-kit";
import type { Transport } from "./transport.server";
import { compact, type ObjectSpec, validateRequest } from "./validate";

export interface WebhookSection {
  type: "ENABLE" | "CANCEL";
  callbackUrls: string[];
}
export interface WebhookSettings {
  product?: WebhookSection;
  stock?: WebhookSection;
  order?: WebhookSection;
  logistics?: WebhookSection;
}

const sectionSpec: ObjectSpec = {
  type: { type: "string", required: true },
  callbackUrls: { type: "stringArray", maxItems: 1 },
};

export class WebhooksResource {
  constructor(private readonly t: Transport) {}

  /** webhook/set. One callback address per section (Part 1 §2.6). */
  async set(settings: WebhookSettings): Promise<boolean> {
    validateRequest(
      "webhook/set",
      {
        product: { type: "object", item: sectionSpec },
        stock: { type: "object", item: sectionSpec },
        order: { type: "object", item: sectionSpec },
        logistics: { type: "object", item: sectionSpec },
      },
      settings,
    );
    for (const [name, s] of Object.entries(settings) as Array<
      [string, WebhookSection | undefined]
    >) {
      if (s && s.type === "ENABLE" && s.callbackUrls.length !== 1) {
        validateRequest(
          "webhook/set",
          { [`${name}.callbackUrls`]: { type: "string", required: true } },
          {},
        );
      }
    }
    return this.t.call(
      STORAGE_OPS.webhookSet,
      { body: compact({ ...settings }) },
      bool.transform((v) => v !== false),
    );
  }
}
