/**
 * Part 2's connections: the links between a shop's variants and the catalog's, as the service
 * keeps them (list, create, delete).
 */

import { CATALOG_OPS, SPECS } from "./catalog.server";
import { connectionSchema, type Connection } from "./catalog-shapes";
import { bool, page, type Page } from "./schema-kit";
import type { Transport } from "./transport.server";
import { compact, validateRequest } from "./validate";

export interface ConnectionListQuery {
  shopId?: string;
  platformProductId?: string;
  platformVariantId?: string;
  page?: number;
  pageSize?: number;
}
export interface CreateConnectionRequest {
  shopId?: string;
  defaultArea: number;
  logistics: string;
  svcProductId: string;
  platformProductId: string;
  sourceCountryCode?: string;
  targetCountryCode?: string;
  sourceCountry?: string;
  targetCountry?: string;
  variantList: Array<{ svcVariantId: string; platformVariantId: string }>;
}
export interface DeleteConnectionRequest {
  shopId?: string;
  platformProductId: string;
  platformVariantId?: string;
}

export class ConnectionsResource {
  constructor(private readonly t: Transport) {}

  /** Connection list: `{total, list}` (shape B without page fields). */
  async list(q: ConnectionListQuery = {}): Promise<Page<Connection>> {
    validateRequest("connection/list", SPECS.connectionList, q);
    return this.t.call(CATALOG_OPS.connectionList, { query: { ...q } }, page(connectionSchema));
  }

  async create(req: CreateConnectionRequest): Promise<boolean> {
    validateRequest("connection/create", SPECS.connectionCreate, req);
    return this.t.call(
      CATALOG_OPS.connectionCreate,
      { body: compact({ ...req }) },
      bool.transform((v) => v !== false),
    );
  }

  async delete(req: DeleteConnectionRequest): Promise<boolean> {
    validateRequest("connection/delete", SPECS.connectionDelete, req);
    return this.t.call(
      CATALOG_OPS.connectionDelete,
      { query: { ...req } },
      bool.transform((v) => v !== false),
    );
  }
}
