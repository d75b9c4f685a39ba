/**
 * Shopify's published Admin GraphQL schema (API version 2026-10), with the rules Shopify applies
 * to a document before it runs it: validation (graphql-js), the requested cost by Shopify's
 * published cost rules, the access scopes every selected field needs, and which fields hold
 * protected customer data. The shop simulator enforces these on every request; the contract test
 * (test/shop/documents.test.ts) applies them to every document the app sends.
 *
 * Source: test/sim/shop/reference/admin-2026-10.json.gz, extracted from the npm package
 * @shopify/dev-mcp by `npm run reference:shopify` (scripts/shopify-reference.mjs).
 *
 * Cost rules (shopify.dev, "GraphQL Admin API rate limits"):
 * - a scalar or enum costs 0; an object costs 1; an interface or union costs the most of its
 *   possible selections;
 * - a connection (a field returning `…Connection`) costs 2 plus `first` (or `last`) times the
 *   cost of one node; the `edges`/`node`/`nodes`/`pageInfo` wrappers cost nothing more; nested
 *   connections multiply;
 * - a list of objects with a `first` argument costs `first` times one element, and one fetched
 *   by `ids` (QueryRoot.nodes) costs one element per id;
 * - a mutation field costs 10 (its payload's own selections are added as for queries);
 * - a single query may request at most 1,000 points (MAX_COST_EXCEEDED beyond).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type IntrospectionQuery,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  Kind,
  buildClientSchema,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isListType,
  isObjectType,
  valueFromASTUntyped,
} from "graphql";

export const ADMIN_API_VERSION = "2026-10";
/** Shopify refuses a single query whose requested cost is over this. */
export const MAX_QUERY_COST = 1000;
export const MUTATION_COST = 10;

interface FieldMetaRaw {
  name: string;
  requiredAccess?: string;
  isProtected?: boolean;
  protectedContent?: string;
}
interface TypeMetaRaw {
  name: string;
  requiredAccess?: string;
  fields?: FieldMetaRaw[] | null;
}

let cached:
  | {
      schema: GraphQLSchema;
      typeAccess: Map<string, string>;
      fieldMeta: Map<string, FieldMetaRaw>;
    }
  | undefined;

function load() {
  if (cached) return cached;
  const file = resolve(import.meta.dirname, "reference", `admin-${ADMIN_API_VERSION}.json.gz`);
  const json = JSON.parse(gunzipSync(readFileSync(file)).toString()) as {
    data: IntrospectionQuery & { __schema: { types: TypeMetaRaw[] } };
  };
  const typeAccess = new Map<string, string>();
  const fieldMeta = new Map<string, FieldMetaRaw>();
  for (const t of json.data.__schema.types) {
    if (t.requiredAccess) typeAccess.set(t.name, t.requiredAccess);
    for (const f of t.fields ?? []) {
      if (f.requiredAccess || f.isProtected) fieldMeta.set(`${t.name}.${f.name}`, f);
    }
  }
  cached = { schema: buildClientSchema(json.data), typeAccess, fieldMeta };
  return cached;
}

/** The Admin API schema of the app's version (built once per process). */
export function adminSchema(): GraphQLSchema {
  return load().schema;
}

// ---------------------------------------------------------------------------------------------
// Access scopes

/**
 * The scopes named in a `requiredAccess` text, any one of which grants access
 * ("`read_orders` access scope, `read_marketplace_orders` access scope or …"). Null when the
 * text names no scope (a staff permission, a private programme): nothing to check.
 */
export function scopesOf(requiredAccess: string): string[] | null {
  const main = requiredAccess.split(/\bAlso:/)[0]!;
  const scopes = [
    ...main.matchAll(/`((?:read|write|unauthenticated_read|unauthenticated_write)_[a-z_]+)`/g),
  ].map((m) => m[1]!);
  return scopes.length ? [...new Set(scopes)] : null;
}

/** True when the granted scopes include one of `anyOf` (a write scope grants its read scope). */
export function grants(granted: readonly string[], anyOf: readonly string[]): boolean {
  const have = new Set(granted.map((s) => s.trim()).filter(Boolean));
  for (const s of [...have]) if (s.startsWith("write_")) have.add(`read_${s.slice(6)}`);
  return anyOf.some((s) => have.has(s));
}

export interface AccessRule {
  /** `Type.field` */
  coordinate: string;
  requiredAccess: string;
  anyOf: string[];
}

/** What the field needs: its own requiredAccess, and that of the object type it returns. */
export function accessRulesOf(
  parentType: string,
  field: GraphQLField<unknown, unknown>,
): AccessRule[] {
  const { typeAccess, fieldMeta } = load();
  const rules: AccessRule[] = [];
  const own = fieldMeta.get(`${parentType}.${field.name}`)?.requiredAccess;
  const target = getNamedType(field.type).name;
  for (const text of [own, typeAccess.get(target)]) {
    if (!text) continue;
    const anyOf = scopesOf(text);
    if (anyOf)
      rules.push({ coordinate: `${parentType}.${field.name}`, requiredAccess: text, anyOf });
  }
  return rules;
}

/** Protected customer data: `protectedContent` (email, name, address, phone…) or null. */
export function protectedContentOf(parentType: string, fieldName: string): string | null {
  const m = load().fieldMeta.get(`${parentType}.${fieldName}`);
  return m?.isProtected ? (m.protectedContent ?? "customer data") : null;
}

// ---------------------------------------------------------------------------------------------
// Walking a document

export type Variables = Record<string, unknown>;

export function operationOf(
  doc: DocumentNode,
  operationName?: string | null,
): OperationDefinitionNode {
  const ops = doc.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
  if (!op) throw new Error(`no operation ${operationName ?? ""} in the document`);
  return op;
}

function argValue(field: FieldNode, name: string, variables: Variables): unknown {
  const arg = field.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  return valueFromASTUntyped(arg.value as ValueNode, variables);
}

/**
 * The fields a selection set selects on a concrete object type, with fragments expanded: a
 * fragment applies when its type condition is the type itself or an interface or union the
 * type belongs to.
 */
function fieldsOn(
  doc: DocumentNode,
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  set: SelectionSetNode,
): FieldNode[] {
  const out: FieldNode[] = [];
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      out.push(sel);
      continue;
    }
    const frag =
      sel.kind === Kind.INLINE_FRAGMENT
        ? sel
        : doc.definitions.find(
            (d): d is FragmentDefinitionNode =>
              d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === sel.name.value,
          );
    if (!frag) continue;
    const cond = frag.typeCondition ? schema.getType(frag.typeCondition.name.value) : type;
    const applies =
      !cond || cond === type || (isAbstractType(cond) && schema.isSubType(cond, type));
    if (applies) out.push(...fieldsOn(doc, schema, type, frag.selectionSet));
  }
  return out;
}

/** The concrete object types a composite type may be. */
function concrete(schema: GraphQLSchema, type: GraphQLCompositeType): readonly GraphQLObjectType[] {
  return isAbstractType(type) ? schema.getPossibleTypes(type) : [type as GraphQLObjectType];
}

const isConnection = (t: GraphQLNamedType) => t.name.endsWith("Connection");

/** The requested cost of a document, by Shopify's published rules (see the header). */
export function requestedCost(
  doc: DocumentNode,
  variables: Variables = {},
  operationName?: string | null,
): number {
  const schema = adminSchema();
  const op = operationOf(doc, operationName);
  const root = op.operation === "mutation" ? schema.getMutationType()! : schema.getQueryType()!;
  // An interface or union costs the most of its possible types' selections.
  const costOfSet = (type: GraphQLCompositeType, set: SelectionSetNode | undefined): number => {
    if (!set) return 0;
    let most = 0;
    for (const t of concrete(schema, type)) {
      let sum = 0;
      for (const node of fieldsOn(doc, schema, t, set)) {
        const def = t.getFields()[node.name.value];
        if (def) sum += costOfField(t, def, node);
      }
      most = Math.max(most, sum);
    }
    return most;
  };
  const perNodeOf = (conn: GraphQLObjectType, node: FieldNode): number => {
    const nodesField = conn.getFields()["nodes"] ?? conn.getFields()["edges"];
    if (!nodesField || !node.selectionSet) return 0;
    const inner = getNamedType(conn.getFields()["nodes"]?.type ?? conn.getFields()["edges"]!.type);
    let perNode = 0;
    for (const sub of fieldsOn(doc, schema, conn, node.selectionSet)) {
      if (sub.name.value === "nodes" && isCompositeType(inner)) {
        perNode = Math.max(perNode, 1 + costOfSet(inner, sub.selectionSet));
      } else if (sub.name.value === "edges" && sub.selectionSet) {
        const edge = getNamedType(conn.getFields()["edges"]!.type) as GraphQLObjectType;
        const nodeType = getNamedType(edge.getFields()["node"]!.type) as GraphQLCompositeType;
        for (const e of fieldsOn(doc, schema, edge, sub.selectionSet)) {
          if (e.name.value === "node")
            perNode = Math.max(perNode, 1 + costOfSet(nodeType, e.selectionSet));
        }
      }
    }
    return perNode;
  };
  const costOfField = (
    parent: GraphQLObjectType,
    def: GraphQLField<unknown, unknown>,
    node: FieldNode,
  ): number => {
    const named = getNamedType(def.type);
    if (!isCompositeType(named)) return 0;
    const base = parent === root && op.operation === "mutation" ? MUTATION_COST : null;
    const n = Number(argValue(node, "first", variables) ?? argValue(node, "last", variables) ?? 0);
    if (isObjectType(named) && isConnection(named)) {
      return (base ?? 2) + Math.max(0, n) * perNodeOf(named, node);
    }
    const one = (base ?? 1) + costOfSet(named, node.selectionSet);
    // A list fetched by ids (QueryRoot.nodes) costs one element per id asked for.
    const ids = argValue(node, "ids", variables);
    if (isListType(getNullableType(def.type)) && Array.isArray(ids)) return ids.length * one;
    if (isListType(getNullableType(def.type)) && n > 0) return n * one;
    return one;
  };
  return costOfSet(root, op.selectionSet);
}

// ---------------------------------------------------------------------------------------------
// Access checks and protected fields

export interface AccessDenial {
  /** Response path of the field (aliases as written). */
  path: string[];
  coordinate: string;
  requiredAccess: string;
  /** Shopify's message for it. */
  message: string;
}

export interface SelectedField {
  path: string[];
  parentType: string;
  fieldName: string;
}

/** Every field a document selects, with its response path (fragments expanded). */
export function selectedFields(doc: DocumentNode, operationName?: string | null): SelectedField[] {
  const schema = adminSchema();
  const op = operationOf(doc, operationName);
  const root = op.operation === "mutation" ? schema.getMutationType()! : schema.getQueryType()!;
  const out: SelectedField[] = [];
  const seen = new Set<string>();
  const walk = (type: GraphQLCompositeType, set: SelectionSetNode, path: string[]) => {
    for (const t of concrete(schema, type)) {
      for (const node of fieldsOn(doc, schema, t, set)) {
        const def = t.getFields()[node.name.value];
        if (!def) continue;
        const key = node.alias?.value ?? node.name.value;
        const at = [...path, key];
        const id = `${t.name}.${def.name}@${at.join(".")}`;
        if (seen.has(id)) continue;
        seen.add(id);
        out.push({ path: at, parentType: t.name, fieldName: def.name });
        const named = getNamedType(def.type);
        if (node.selectionSet && isCompositeType(named)) walk(named, node.selectionSet, at);
      }
    }
  };
  walk(root, op.selectionSet, []);
  return out;
}

/** The fields the granted scopes cannot read (or mutations they cannot run). */
export function accessDenials(
  doc: DocumentNode,
  granted: readonly string[],
  operationName?: string | null,
): AccessDenial[] {
  const schema = adminSchema();
  const denials: AccessDenial[] = [];
  for (const f of selectedFields(doc, operationName)) {
    const type = schema.getType(f.parentType) as GraphQLObjectType;
    const def = type.getFields()[f.fieldName];
    if (!def) continue;
    for (const rule of accessRulesOf(f.parentType, def)) {
      if (grants(granted, rule.anyOf)) continue;
      denials.push({
        path: f.path,
        coordinate: rule.coordinate,
        requiredAccess: rule.requiredAccess,
        message: `Access denied for ${f.fieldName} field. Required access: ${rule.requiredAccess}`,
      });
      break;
    }
  }
  // A denied field hides what is under it: report the outermost only.
  return denials.filter(
    (d) =>
      !denials.some(
        (o) => o !== d && o.path.length < d.path.length && o.path.every((p, i) => d.path[i] === p),
      ),
  );
}

/** Response paths of protected customer data fields the document selects. */
export function protectedPaths(
  doc: DocumentNode,
  operationName?: string | null,
): { path: string[]; content: string }[] {
  const out: { path: string[]; content: string }[] = [];
  for (const f of selectedFields(doc, operationName)) {
    const content = protectedContentOf(f.parentType, f.fieldName);
    if (content) out.push({ path: f.path, content });
  }
  return out;
}
