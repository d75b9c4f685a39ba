/**
 * Preloaded into the app's processes by `bench:scale` (`node --import ./bench/scale-census.mjs`):
 * counts every SQL statement the process sends through the pg driver (the one Prisma's adapter
 * uses), by its text, with its calls and its total time, and writes the count to
 * `$SCALE_CENSUS_DIR/census-<pid>.json` when the process exits (a SIGKILLed worker leaves none).
 * Nothing of the compiled app is touched: the driver's `Client#query` is wrapped, its results
 * and errors pass through unchanged.
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";
import { join } from "node:path";

const dir = process.env.SCALE_CENSUS_DIR;
const pg = createRequire(join(process.cwd(), "package.json"))("pg");
const schema = process.env.DATABASE_URL
  ? new URL(process.env.DATABASE_URL).searchParams.get("schema")
  : null;

/** The statement's text with its varying parts folded: `IN ($1,$2,$3)` counts as one shape. */
function shape(text) {
  return text
    .replace(/\s+/g, " ")
    .replace(/\$\d+(\s*,\s*\$\d+)+/g, "$n…")
    .replaceAll(schema ? `"${schema}".` : "\0", "")
    .trim();
}

/** @type {Map<string, { calls: number, ms: number }>} */
const census = new Map();
/** Each explicit transaction's statement kinds in order ("UPDATE ShopOrder > INSERT TimelineEntry"), counted. */
/** @type {Map<string, number>} */
const transactions = new Map();

/** A statement's verb and first table, as bench/scale.ts names kinds. */
function kindOf(text) {
  const verb = text.split(" ")[0].toUpperCase();
  const table = /\b(?:FROM|INTO|UPDATE)\s+(?:"[^"]+"\.)?"([^"]+)"/i.exec(text)?.[1];
  return `${verb} ${table ?? "(other)"}`;
}

/** Follows the client's explicit transaction: opened by BEGIN, closed by COMMIT or ROLLBACK. */
function follow(client, text) {
  const verb = text.trimStart().split(/\s/)[0].toUpperCase();
  if (verb === "BEGIN") client.__censusTx = [];
  else if (verb === "COMMIT" || verb === "ROLLBACK") {
    if (client.__censusTx) {
      const key = `${client.__censusTx.join(" > ")} > ${verb}`;
      transactions.set(key, (transactions.get(key) ?? 0) + 1);
    }
    client.__censusTx = undefined;
  } else if (client.__censusTx) client.__censusTx.push(kindOf(shape(text)));
}
const note = (text, started) => {
  const key = shape(text);
  const entry = census.get(key) ?? { calls: 0, ms: 0 };
  entry.calls++;
  entry.ms += performance.now() - started;
  census.set(key, entry);
};

const realQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function query(config, values, callback) {
  const text = typeof config === "string" ? config : config?.text;
  if (typeof text !== "string") return realQuery.call(this, config, values, callback);
  follow(this, text);
  const started = performance.now();
  const cb = typeof values === "function" ? values : callback;
  if (cb) {
    const done = (...args) => {
      note(text, started);
      return cb(...args);
    };
    return typeof values === "function"
      ? realQuery.call(this, config, done)
      : realQuery.call(this, config, values, done);
  }
  const out = realQuery.call(this, config, values);
  if (out && typeof out.then === "function") return out.finally(() => note(text, started));
  note(text, started);
  return out;
};

process.on("exit", () => {
  if (!dir) return;
  const statements = [...census].map(([text, e]) => ({
    text,
    calls: e.calls,
    total_ms: Math.round(e.ms * 10) / 10,
  }));
  writeFileSync(
    join(dir, `census-${process.pid}.json`),
    JSON.stringify({
      pid: process.pid,
      argv: process.argv.slice(1),
      statements,
      transactions: Object.fromEntries(transactions),
    }),
  );
});
