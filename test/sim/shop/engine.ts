/**
 * The shop simulator's GraphQL engine over Shopify's published Admin schema (admin-schema.ts),
 * answering the way the Admin API does:
 *
 * 1. parse and validate with graphql-js; coerce variables against the real input types
 *    (INVALID_VARIABLE); connection arguments (first/last given, 0–250) and input arrays
 *    (≤ 250 items, MAX_INPUT_SIZE_EXCEEDED); fields the simulator does not implement are refused
 *    by name. Any of these: HTTP 200, top-level `errors`, no `data`, nothing run.
 * 2. the requested cost by Shopify's rules (requestedCost): over 1,000 MAX_COST_EXCEEDED; then the
 *    shop's leaky bucket: more than currentlyAvailable is THROTTLED. Otherwise the bucket is
 *    charged the requested cost, the document runs, and the difference to the actual cost (what
 *    was really returned) is refunded.
 * 3. execution with graphql-js `execute` over the client schema, one field resolver dispatching
 *    to schema.ts; fields the installed scopes cannot read are null with ACCESS_DENIED errors;
 *    protected customer data is null until the shop grants it.
 *
 * Every reply that got as far as the cost carries `extensions.cost`.
 */
import {
  type DocumentNode,
  type FieldNode,
  type GraphQLError as GraphQLErrorType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
  GraphQLError,
  Kind,
  TypeInfo,
  coerceInputValue,
  executeSync,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  print,
  typeFromAST,
  validate,
  valueFromAST,
  visit,
  visitWithTypeInfo,
} from "graphql";
import {
  MAX_QUERY_COST,
  MUTATION_COST,
  accessDenials,
  adminSchema,
  protectedPaths,
  requestedCost,
} from "./admin-schema";
import {
  type Ctx,
  MAX_INPUT_ARRAY,
  implOf,
  openDueFulfillmentOrders,
  producesType,
} from "./schema";
import type { ShopRec, ThrottleBucket } from "./state";

export interface GqlRequest {
  query: unknown;
  variables: unknown;
  operationName: unknown;
}

export interface GqlReply {
  body: Record<string, unknown>;
  requestedQueryCost: number | null;
  actualQueryCost: number | null;
  operationName: string | null;
}

type ErrorJson = {
  message: string;
  locations?: { line: number; column: number }[];
  path?: (string | number)[];
  extensions: Record<string, unknown>;
};

const RATE_LIMITS_DOC = "https://shopify.dev/api/usage/rate-limits";
const ACCESS_SCOPES_DOC = "https://shopify.dev/api/usage/access-scopes";

// --- the throttle bucket -----------------------------------------------------------------------

export const STANDARD_BUCKET = { maximumAvailable: 2000, restoreRate: 100 };

export function newBucket(
  o: { maximumAvailable: number; restoreRate: number } = STANDARD_BUCKET,
): ThrottleBucket {
  return { ...o, currentlyAvailable: o.maximumAvailable, at: Date.now() };
}

/** Brings the bucket up to date: it refills at restoreRate points a second, up to the maximum. */
export function refill(b: ThrottleBucket, now = Date.now()): ThrottleBucket {
  const gained = ((now - b.at) / 1000) * b.restoreRate;
  b.currentlyAvailable = Math.min(b.maximumAvailable, b.currentlyAvailable + gained);
  b.at = now;
  return b;
}

function throttleStatus(b: ThrottleBucket) {
  return {
    maximumAvailable: b.maximumAvailable,
    currentlyAvailable: Math.floor(b.currentlyAvailable),
    restoreRate: b.restoreRate,
  };
}

export function costExtension(b: ThrottleBucket, requested: number, actual: number | null) {
  return {
    requestedQueryCost: requested,
    actualQueryCost: actual,
    throttleStatus: throttleStatus(refill(b)),
  };
}

/**
 * Shopify's THROTTLED reply (HTTP 200). `drained` shows the bucket empty (the throttleNext
 * knob: throttled as if other calls had used it up, without touching the real bucket).
 */
export function throttledBody(b: ThrottleBucket, requested: number, drained = false) {
  const cost = costExtension(b, requested, null);
  if (drained) cost.throttleStatus.currentlyAvailable = 0;
  return {
    errors: [
      {
        message: "Throttled",
        extensions: { code: "THROTTLED", documentation: RATE_LIMITS_DOC },
      },
    ],
    extensions: { cost },
  };
}

// --- errors as Shopify words them ---------------------------------------------------------------

function errorJson(e: GraphQLErrorType, extra: Record<string, unknown> = {}): ErrorJson {
  return {
    message: e.message,
    ...(e.locations ? { locations: e.locations.map((l) => ({ ...l })) } : {}),
    ...(e.path ? { path: [...e.path] } : {}),
    extensions: { ...(e.extensions as Record<string, unknown>), ...extra },
  };
}

const loc = (node: { loc?: { startToken: { line: number; column: number } } } | undefined) =>
  node?.loc ? [{ line: node.loc.startToken.line, column: node.loc.startToken.column }] : undefined;

/** graphql-js validation messages in the words the Admin API uses for the common ones. */
function shopifyValidationError(e: GraphQLErrorType): ErrorJson {
  const base = { locations: e.locations?.map((l) => ({ ...l })) };
  let m = /^Cannot query field "([^"]+)" on type "([^"]+)"\./.exec(e.message);
  if (m)
    return {
      message: `Field '${m[1]}' doesn't exist on type '${m[2]}'`,
      ...base,
      extensions: { code: "undefinedField", typeName: m[2], fieldName: m[1] },
    };
  m = /^Unknown argument "([^"]+)" on field "[^".]+\.([^"]+)"\./.exec(e.message);
  if (m)
    return {
      message: `Field '${m[2]}' doesn't accept argument '${m[1]}'`,
      ...base,
      extensions: {
        code: "argumentNotAccepted",
        name: m[2],
        typeName: "Field",
        argumentName: m[1],
      },
    };
  m =
    /^Field "([^"]+)" argument "([^"]+)" of type "[^"]+" is required, but it was not provided\./.exec(
      e.message,
    );
  if (m)
    return {
      message: `Field '${m[1]}' is missing required arguments: ${m[2]}`,
      ...base,
      extensions: {
        code: "missingRequiredArguments",
        className: "Field",
        name: m[1],
        arguments: m[2],
      },
    };
  m = /^Field "([^"]+)" of type "([^"]+)" must have a selection of subfields/.exec(e.message);
  if (m)
    return {
      message: `Field must have selections (field '${m[1]}' returns ${m[2]!.replace(/[[\]!]/g, "")} but has no selections. Did you mean '${m[1]} { ... }'?)`,
      ...base,
      extensions: { code: "selectionMismatch", nodeName: `field '${m[1]}'` },
    };
  m = /^Field "([^"]+)" must not have a selection since type "([^"]+)" has no subfields\./.exec(
    e.message,
  );
  if (m)
    return {
      message: `Selections can't be made on scalars (field '${m[1]}' returns ${m[2]!.replace(/[[\]!]/g, "")} but has selections)`,
      ...base,
      extensions: { code: "selectionMismatch", nodeName: `field '${m[1]}'` },
    };
  m = /^Variable "\$([^"]+)" is never used in operation "([^"]+)"\./.exec(e.message);
  if (m)
    return {
      message: `Variable $${m[1]} is declared by ${m[2]} but not used`,
      ...base,
      extensions: { code: "variableNotUsed", variableName: m[1] },
    };
  m = /^Variable "\$([^"]+)" is not defined by operation "([^"]+)"\./.exec(e.message);
  if (m)
    return {
      message: `Variable $${m[1]} is used by ${m[2]} but not declared`,
      ...base,
      extensions: { code: "variableNotDefined", variableName: m[1] },
    };
  return { message: e.message, ...base, extensions: { code: "GRAPHQL_VALIDATION_FAILED" } };
}

/** graphql-js coercion messages as the Admin API's INVALID_VARIABLE explanations. */
function explanationOf(message: string): string {
  let m = /^Field "([^"]+)" is not defined by type "([^"]+)"/.exec(message);
  if (m) return `Field is not defined on ${m[2]}`;
  m = /^Field "([^"]+)" of required type "[^"]+" was not provided\./.exec(message);
  if (m) return "Expected value to not be null";
  if (/^Expected non-nullable type "[^"]+" not to be null\./.test(message))
    return "Expected value to not be null";
  m = /^(?:Int|Float|String|Boolean|ID) cannot represent [^:]*: (.*)$/.exec(message);
  if (m) {
    const type = /^(\w+)/.exec(message)![1];
    return `Could not coerce value ${m[1]} to ${type}`;
  }
  m = /^Value "([^"]+)" does not exist in "([^"]+)" enum\./.exec(message);
  if (m) return `Expected "${m[1]}" to be one of: ${m[2]}`;
  return message.replace(/\s*Did you mean[^?]*\?$/, "");
}

/** Coerces the operation's variables against their declared types, like Shopify. */
function coerceVariables(
  op: OperationDefinitionNode,
  raw: Record<string, unknown>,
): { values: Record<string, unknown> } | { errors: ErrorJson[] } {
  const schema = adminSchema();
  const values: Record<string, unknown> = {};
  const errors: ErrorJson[] = [];
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType;
    const typeText = print(def.type);
    const given = raw[name];
    const problems: { path: (string | number)[]; explanation: string }[] = [];
    if (given === undefined) {
      if (def.defaultValue) values[name] = valueFromAST(def.defaultValue, type);
      else if (isNonNullType(type))
        problems.push({ path: [], explanation: "Expected value to not be null" });
    } else {
      values[name] = coerceInputValue(given, type, (path, _invalid, error) => {
        // graphql-js reports an unknown or missing input field at its object; Shopify at the field.
        const unknown =
          /^Field "([^"]+)" is not defined by type/.exec(error.message) ??
          /^Field "([^"]+)" of required type "[^"]+" was not provided\./.exec(error.message);
        problems.push({
          path: unknown ? [...path, unknown[1]!] : [...path],
          explanation: explanationOf(error.message),
        });
      });
    }
    if (problems.length) {
      const where = problems
        .filter((p) => p.path.length)
        .map((p) => `${p.path.join(".")} (${p.explanation})`);
      errors.push({
        message: `Variable $${name} of type ${typeText} was provided invalid value${where.length ? ` for ${where.join(", ")}` : ""}`,
        locations: loc(def),
        extensions: { code: "INVALID_VARIABLE", value: given ?? null, problems },
      });
    }
  }
  return errors.length ? { errors } : { values };
}

// --- checks before execution --------------------------------------------------------------------

/**
 * Fields the simulator does not implement (refused by name), connection arguments out of
 * Shopify's bounds, and input arrays over 250 items.
 */
function preflight(doc: DocumentNode, variables: Record<string, unknown>): ErrorJson[] {
  const schema = adminSchema();
  const typeInfo = new TypeInfo(schema);
  const errors: ErrorJson[] = [];
  const seen = new Set<string>();
  const argValue = (node: FieldNode, name: string): unknown => {
    const a = node.arguments?.find((x) => x.name.value === name);
    if (!a) return undefined;
    if (a.value.kind === Kind.VARIABLE) return variables[a.value.name.value];
    if (a.value.kind === Kind.INT) return Number(a.value.value);
    if (a.value.kind === Kind.NULL) return null;
    return undefined;
  };
  const pathOf: string[] = [];
  visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          pathOf.push(node.alias?.value ?? node.name.value);
          const parent = typeInfo.getParentType();
          const def = typeInfo.getFieldDef();
          if (!parent || !def || node.name.value.startsWith("__")) return;
          // Which concrete types could hold this field: only those the simulator produces (a
          // field under a type it never returns is reported where that type is selected).
          const concrete: readonly GraphQLNamedType[] = isAbstractType(parent)
            ? schema.getPossibleTypes(parent)
            : [parent];
          for (const t of concrete) {
            if (!isObjectType(t) || !producesType(t.name) || implOf(t.name, node.name.value))
              continue;
            const coordinate = `${t.name}.${node.name.value}`;
            if (seen.has(coordinate)) continue;
            seen.add(coordinate);
            errors.push({
              message: `${coordinate} is not implemented by the shop simulator`,
              locations: loc(node),
              path: [...pathOf],
              extensions: { code: "NOT_IMPLEMENTED_BY_SIMULATOR", field: coordinate },
            });
          }
          const named = getNamedType(def.type);
          const argNames = def.args.map((a) => a.name);
          if (
            isObjectType(named) &&
            named.name.endsWith("Connection") &&
            argNames.includes("first") &&
            argNames.includes("last")
          ) {
            const first = argValue(node, "first");
            const last = argValue(node, "last");
            if (first == null && last == null) {
              errors.push({
                message: "you must provide one of first or last",
                locations: loc(node),
                path: [...pathOf],
                extensions: { code: "BAD_REQUEST" },
              });
            }
            for (const [k, v] of [
              ["first", first],
              ["last", last],
            ] as const) {
              if (typeof v === "number" && (v < 0 || v > 250))
                errors.push({
                  message: `The ${k} argument must be between 0 and 250`,
                  locations: loc(node),
                  path: [...pathOf],
                  extensions: { code: "BAD_REQUEST" },
                });
            }
          }
          // Input arrays: at most 250 items, anywhere in an argument.
          for (const a of node.arguments ?? []) {
            const argDef = def.args.find((x) => x.name === a.name.value);
            if (!argDef) continue;
            const value =
              a.value.kind === Kind.VARIABLE
                ? variables[a.value.name.value]
                : valueFromAST(a.value, argDef.type, variables);
            const over = oversizedArray(value, argDef.type, [a.name.value]);
            if (over)
              errors.push({
                message: `The input array size of ${over.size} is greater than the maximum allowed of ${MAX_INPUT_ARRAY}.`,
                locations: loc(a),
                path: [...pathOf, ...over.path],
                extensions: { code: "MAX_INPUT_SIZE_EXCEEDED" },
              });
          }
        },
        leave() {
          pathOf.pop();
        },
      },
    }),
  );
  return errors;
}

function oversizedArray(
  value: unknown,
  type: GraphQLInputType,
  path: (string | number)[],
): { size: number; path: (string | number)[] } | null {
  if (value == null) return null;
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) {
    if (!Array.isArray(value)) return null;
    if (value.length > MAX_INPUT_ARRAY) return { size: value.length, path };
    for (const [i, v] of value.entries()) {
      const inner = oversizedArray(v, t.ofType as GraphQLInputType, [...path, i]);
      if (inner) return inner;
    }
    return null;
  }
  if (isInputObjectType(t) && typeof value === "object") {
    for (const [k, f] of Object.entries(t.getFields())) {
      const inner = oversizedArray((value as Record<string, unknown>)[k], f.type, [...path, k]);
      if (inner) return inner;
    }
  }
  return null;
}

// --- protected customer data ------------------------------------------------------------------

function redact(data: unknown, path: string[]): void {
  if (data == null || path.length === 0) return;
  if (Array.isArray(data)) {
    for (const x of data) redact(x, path);
    return;
  }
  if (typeof data !== "object") return;
  const [head, ...rest] = path as [string, ...string[]];
  const obj = data as Record<string, unknown>;
  if (!(head in obj)) return;
  if (rest.length === 0) obj[head] = null;
  else redact(obj[head], rest);
}

function visibleContent(shop: ShopRec, content: string): boolean {
  const p = shop.protectedData;
  if (p.level < 2) return false;
  if (!p.fields) return true;
  return (p.fields as string[]).includes(content);
}

// --- running a request --------------------------------------------------------------------------

const pathKey = (path: GraphQLResolveInfo["path"]): string => {
  const keys: string[] = [];
  for (let p: GraphQLResolveInfo["path"] | undefined = path; p; p = p.prev)
    if (typeof p.key === "string") keys.unshift(p.key);
  return keys.join(".");
};

/** Parsed and validated documents by their text (an app sends a few, again and again). */
const documents = new Map<string, { doc: DocumentNode } | { errors: ErrorJson[] }>();

/**
 * A query's document, parsed and validated against the schema once per distinct text: the
 * same text always gets the same answer, a document or its errors, so the cache changes nothing
 * of what is accepted or refused.
 */
function checkedDocument(query: string): { doc: DocumentNode } | { errors: ErrorJson[] } {
  const known = documents.get(query);
  if (known) return known;
  let checked: { doc: DocumentNode } | { errors: ErrorJson[] };
  try {
    const doc = parse(query);
    const invalid = validate(adminSchema(), doc);
    checked = invalid.length ? { errors: invalid.map(shopifyValidationError) } : { doc };
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    checked = { errors: [errorJson(e, { code: "PARSE_ERROR" })] };
  }
  if (documents.size >= 1000) documents.clear();
  documents.set(query, checked);
  return checked;
}

/** Answers one GraphQL request for a shop (after auth and the fault knobs). */
export function runGraphql(req: GqlRequest, ctx: Ctx): GqlReply {
  const { shop } = ctx;
  const reply = (
    body: Record<string, unknown>,
    requested: number | null = null,
    actual: number | null = null,
    operationName: string | null = null,
  ): GqlReply => ({
    body,
    requestedQueryCost: requested,
    actualQueryCost: actual,
    operationName,
  });
  if (typeof req.query !== "string" || !req.query.trim())
    return reply({
      errors: [{ message: "No query string was present", extensions: { code: "BAD_REQUEST" } }],
    });
  const checked = checkedDocument(req.query);
  if ("errors" in checked) return reply({ errors: structuredClone(checked.errors) });
  const doc = checked.doc;
  const schema = adminSchema();

  const ops = doc.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const wanted = typeof req.operationName === "string" ? req.operationName : null;
  const op = wanted ? ops.find((o) => o.name?.value === wanted) : ops[0];
  if (!op || (!wanted && ops.length > 1))
    return reply({
      errors: [
        {
          message: wanted
            ? `No operation named "${wanted}"`
            : "An operation name is required when sending multiple operations.",
          extensions: { code: "BAD_REQUEST" },
        },
      ],
    });
  const opName = op.name?.value ?? null;
  if (op.operation === "subscription")
    return reply({
      errors: [{ message: "Subscriptions are not supported", extensions: { code: "BAD_REQUEST" } }],
    });

  const rawVars =
    req.variables && typeof req.variables === "object" && !Array.isArray(req.variables)
      ? (req.variables as Record<string, unknown>)
      : {};
  const coerced = coerceVariables(op, rawVars);
  if ("errors" in coerced) return reply({ errors: coerced.errors }, null, null, opName);
  const variables = coerced.values;

  const pre = preflight({ ...doc, definitions: [op, ...fragmentsOf(doc)] }, variables);
  if (pre.length) return reply({ errors: pre }, null, null, opName);

  // Cost and throttle.
  const requested = requestedCost(doc, variables, opName);
  const bucket = refill(shop.bucket);
  if (requested > MAX_QUERY_COST) {
    return reply(
      {
        errors: [
          {
            message:
              `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).\n\n` +
              "See https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\n" +
              "cost of a query is calculated.\n\n" +
              "To query larger amounts of data with fewer limits, bulk operations should be used instead.\n" +
              "See https://shopify.dev/tutorials/perform-bulk-operations-with-admin-api for usage details.\n",
            extensions: { code: "MAX_COST_EXCEEDED", cost: requested, maxCost: MAX_QUERY_COST },
          },
        ],
        extensions: { cost: costExtension(bucket, requested, null) },
      },
      requested,
      null,
      opName,
    );
  }
  if (requested > bucket.currentlyAvailable)
    return reply(throttledBody(bucket, requested), requested, null, opName);
  bucket.currentlyAvailable -= requested;
  openDueFulfillmentOrders(shop);

  // Scopes: the outermost field each denial hides.
  const denied = new Map<string, { message: string; requiredAccess: string }>();
  for (const d of accessDenials(doc, shop.scopes, opName))
    denied.set(`${d.coordinate}@${d.path.join(".")}`, d);

  let actual = 0;
  const counted = new WeakMap<object, number>();
  const mutationRoot = schema.getMutationType();
  const result = executeSync({
    schema,
    document: doc,
    operationName: opName,
    variableValues: variables,
    contextValue: ctx,
    rootValue: {},
    typeResolver: (value) => (value as { __typename?: string }).__typename,
    fieldResolver: (source, args, context: Ctx, info) => {
      const coordinate = `${info.parentType.name}.${info.fieldName}`;
      const denial = denied.get(`${coordinate}@${pathKey(info.path)}`);
      if (denial)
        throw new GraphQLError(denial.message, {
          extensions: {
            code: "ACCESS_DENIED",
            documentation: ACCESS_SCOPES_DOC,
            requiredAccess: denial.requiredAccess,
          },
        });
      const impl = implOf(info.parentType.name, info.fieldName);
      if (!impl)
        throw new GraphQLError(`${coordinate} is not implemented by the shop simulator`, {
          extensions: { code: "NOT_IMPLEMENTED_BY_SIMULATOR", field: coordinate },
        });
      const value =
        impl === "prop"
          ? (source as Record<string, unknown>)[info.fieldName]
          : impl(source, args, context, info);
      actual += actualCostOf(info, source, value, counted, mutationRoot?.name);
      return value === undefined ? null : value;
    },
  });
  const data = result.data as Record<string, unknown> | null | undefined;
  for (const p of protectedPaths(doc, opName)) {
    if (!visibleContent(shop, p.content)) redact(data, p.path);
  }
  const actualCost = Math.min(actual, requested);
  bucket.currentlyAvailable = Math.min(
    bucket.maximumAvailable,
    bucket.currentlyAvailable + (requested - actualCost),
  );
  return reply(
    {
      ...(result.errors?.length ? { errors: result.errors.map((e) => errorJson(e)) } : {}),
      data: data ?? null,
      extensions: { cost: costExtension(bucket, requested, actualCost) },
    },
    requested,
    actualCost,
    opName,
  );
}

function fragmentsOf(doc: DocumentNode) {
  return doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
}

/**
 * What a resolved field adds to the actual cost, by the rules of requestedCost but counting
 * what was returned: an object 1, a mutation 10, a connection 2 plus its returned nodes, a list
 * of objects its length; edges, nodes and pageInfo wrappers nothing more.
 */
function actualCostOf(
  info: GraphQLResolveInfo,
  source: unknown,
  value: unknown,
  counted: WeakMap<object, number>,
  mutationRoot: string | undefined,
): number {
  const parent = info.parentType.name;
  if (parent === mutationRoot) return MUTATION_COST;
  if (parent.endsWith("Connection")) {
    if ((info.fieldName === "nodes" || info.fieldName === "edges") && Array.isArray(value)) {
      const before = counted.get(source as object) ?? 0;
      counted.set(source as object, Math.max(before, value.length));
      return Math.max(0, value.length - before);
    }
    return 0;
  }
  if (parent.endsWith("Edge")) return 0;
  const named = getNamedType(info.returnType);
  if (!isCompositeType(named) || value == null) return 0;
  if (named.name.endsWith("Connection")) return 2;
  if (Array.isArray(value)) return value.filter((x) => x != null).length;
  return 1;
}
