/**
 * Route labels and redacted paths for logs and metrics.
 *
 * The label is the route pattern a request matches (`/webhooks/svc/:secret`, `/app/orders/:id`),
 * taken from the Remix build's own route table: few distinct values, fit for a metric label.
 * The logged path is the real path with every credential removed: path parameters named like a
 * credential (`:secret`, `:token`, …) and long token-like segments of unmatched paths become
 * `[redacted]`, and every query value except a short list of harmless ones does too.
 */
import type { ServerBuild } from "@remix-run/node";

export const REDACTED = "[redacted]";

/** Path parameters whose value is a credential. */
const SECRET_PARAM = /secret|token|key|code|password|sign/i;
/** Query parameters logged as they are; every other value is redacted (an allowlist). */
const SAFE_QUERY = new Set(["shop", "embedded", "locale", "_data", "index", "page", "status"]);
/** A segment that looks like a token (long, URL-safe base64 or hex), in an unmatched path. */
const TOKEN_LIKE = /^[A-Za-z0-9_\-.~%+=]{20,}$/;
const MAX_LOGGED_PATH = 300;

type Segment =
  | { kind: "static"; text: string }
  | { kind: "param"; name: string }
  | { kind: "splat" };

interface Pattern {
  label: string;
  segments: Segment[];
}

export interface RouteMatch {
  /** The pattern, e.g. `/webhooks/svc/:secret`; "unmatched" when no route has the path. */
  route: string;
  /** The path for a log line, credentials redacted. */
  path: string;
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

/** Every route's full path pattern, parents joined. */
function patternsOf(build: Pick<ServerBuild, "routes">): Pattern[] {
  const routes = build.routes;
  const fullPath = (id: string): string[] => {
    const route = routes[id];
    if (!route) return [];
    const own = route.path ? split(route.path) : [];
    return [...(route.parentId ? fullPath(route.parentId) : []), ...own];
  };
  const seen = new Map<string, Pattern>();
  for (const id of Object.keys(routes)) {
    const parts = fullPath(id);
    const label = `/${parts.join("/")}`;
    if (seen.has(label)) continue;
    seen.set(label, {
      label,
      segments: parts.map((p): Segment => {
        if (p === "*") return { kind: "splat" };
        if (p.startsWith(":")) return { kind: "param", name: p.slice(1).replace(/\?$/, "") };
        return { kind: "static", text: p };
      }),
    });
  }
  return [...seen.values()];
}

/** A score for a match (static segments beat parameters beat a splat), or -1. */
function score(pattern: Pattern, parts: string[]): number {
  let total = 0;
  for (let i = 0; i < pattern.segments.length; i++) {
    const seg = pattern.segments[i]!;
    if (seg.kind === "splat") return total + 1;
    const part = parts[i];
    if (part === undefined) return -1;
    if (seg.kind === "static") {
      // Remix matches paths case-insensitively.
      if (seg.text.toLowerCase() !== part.toLowerCase()) return -1;
      total += 10;
    } else total += 5;
  }
  return parts.length === pattern.segments.length ? total : -1;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function redactQuery(search: string): string {
  if (search === "" || search === "?") return "";
  const params = new URLSearchParams(search);
  const out: string[] = [];
  for (const [k, v] of params) {
    const key = k.slice(0, 40).replace(/[^\w.-]/g, "_");
    out.push(`${key}=${SAFE_QUERY.has(k) ? encodeURIComponent(v.slice(0, 100)) : REDACTED}`);
  }
  return out.length > 0 ? `?${out.join("&")}` : "";
}

/** Builds a matcher for one build's routes. */
export function routeMatcher(build: Pick<ServerBuild, "routes">): (url: string) => RouteMatch {
  const patterns = patternsOf(build);
  return (url) => {
    const q = url.indexOf("?");
    const pathname = q === -1 ? url : url.slice(0, q);
    const query = redactQuery(q === -1 ? "" : url.slice(q));
    const parts = split(pathname).map(safeDecode);
    let best: Pattern | undefined;
    let bestScore = -1;
    for (const p of patterns) {
      const s = score(p, parts);
      if (s > bestScore) [best, bestScore] = [p, s];
    }
    let logged: string[];
    if (best) {
      logged = parts.map((part, i) => {
        const seg = best.segments[i];
        if (seg?.kind === "param" && SECRET_PARAM.test(seg.name)) return REDACTED;
        if (!seg || seg.kind === "splat") return TOKEN_LIKE.test(part) ? REDACTED : part;
        return part;
      });
    } else {
      logged = parts.map((part) => (TOKEN_LIKE.test(part) ? REDACTED : part));
    }
    const encoded = logged.map((p) => (p === REDACTED ? p : encodeURI(p)));
    const path = `/${encoded.join("/")}`.slice(0, MAX_LOGGED_PATH);
    return { route: best ? best.label : "unmatched", path: path + query };
  };
}
