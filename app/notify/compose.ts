/**
 * One digest email from the notices it carries: a subject that says what happened, then one
 * section per kind (at most LIST_MAX lines each, the rest counted), the way to the app, and an
 * unsubscribe link per kind. Plain text and the same in simple HTML. Pure: tested alone.
 */
import { KIND_LABEL, NOTICE_KINDS, type NoticeKind } from "./kinds";

export const LIST_MAX = 20;

export interface DigestNotice {
  kind: NoticeKind;
  key: string;
  text: string;
  orderId: string | null;
}

export interface DigestLinks {
  /** The app's orders needing attention, and its dashboard. */
  attention: string;
  dashboard: string;
  order(id: string): string;
  unsubscribe(kind: NoticeKind | "all"): string;
}

const SECTION_TITLE: Record<NoticeKind, string> = {
  failures: "Orders that need you",
  low_balance: "Balance",
  outage: "The service",
  webhooks: "Webhooks",
  disputes: "Disputes",
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function digestSubject(shop: string, notices: DigestNotice[]): string {
  const parts: string[] = [];
  const failed = notices.filter((n) => n.kind === "failures" && n.key.startsWith("failed:")).length;
  const held = notices.filter((n) => n.kind === "failures" && n.key.startsWith("held:")).length;
  const flagged = notices.filter((n) => n.kind === "failures" && n.key.startsWith("flag:")).length;
  if (failed) parts.push(`${plural(failed, "order")} failed`);
  if (held) parts.push(`${plural(held, "order")} held`);
  if (flagged) parts.push(`${plural(flagged, "order")} to look at`);
  const has = (kind: NoticeKind, prefix: string) =>
    notices.some((n) => n.kind === kind && n.key.startsWith(prefix));
  if (has("outage", "outage:")) parts.push("the service is not answering");
  else if (has("outage", "outage-over:")) parts.push("the service answers again");
  if (has("low_balance", "low_balance:")) parts.push("balance low");
  if (has("webhooks", "webhooks:")) parts.push("webhooks need attention");
  const disputes = notices.filter((n) => n.kind === "disputes").length;
  if (disputes) parts.push(`${plural(disputes, "dispute update")}`);
  const what = parts.length ? parts.join(", ") : plural(notices.length, "notice");
  const head = what.charAt(0).toUpperCase() + what.slice(1);
  return `${head} · ${shop.replace(/\.myshopify\.com$/, "")}`;
}

interface Group {
  head: string;
  orders: { name: string; id: string }[];
}

/**
 * Orders that failed or are held for the same reason make one line with their names under it
 * (40 orders held for one cause are one reason, not 40). The notice texts are the app's own:
 * "<name> failed: <reason>", "<name> is held: <reason>", "<name>: <what to look at>".
 */
function groupsOf(items: DigestNotice[]): Group[] {
  const groups = new Map<string, Group>();
  const alone: Group[] = [];
  for (const n of items) {
    const m = /^(\S+) (failed|is held): (.*)$/s.exec(n.text) ?? /^(\S+)(): (.*)$/s.exec(n.text);
    if (!m || !n.orderId) {
      // News of its own (a dispute's, say) links to its order when it has one.
      alone.push({ head: n.text, orders: n.orderId ? [{ name: "the order", id: n.orderId }] : [] });
      continue;
    }
    const [, name, verb, reason] = m as unknown as [string, string, string, string];
    const what = verb === "failed" ? "failed" : verb === "is held" ? "held" : "to look at";
    const key = `${what}\u0000${reason}`;
    const g = groups.get(key) ?? { head: reason, orders: [] };
    g.orders.push({ name, id: n.orderId });
    groups.set(key, g);
  }
  for (const [key, g] of groups) {
    const what = key.slice(0, key.indexOf("\u0000"));
    const count = `${g.orders.length} ${g.orders.length === 1 ? "order" : "orders"}`;
    g.head = `${count} ${what === "to look at" ? "to look at" : what}: ${g.head}`;
  }
  return [...groups.values(), ...alone];
}

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export function composeDigest(
  shop: string,
  notices: DigestNotice[],
  links: DigestLinks,
): { subject: string; text: string; html: string } {
  const subject = digestSubject(shop, notices);
  const kinds = NOTICE_KINDS.filter((k) => notices.some((n) => n.kind === k));
  const text: string[] = [`What needs you at ${shop} since the last email:`, ""];
  const html: string[] = [
    `<p>What needs you at <strong>${escapeHtml(shop)}</strong> since the last email:</p>`,
  ];
  for (const kind of kinds) {
    const items = notices.filter((n) => n.kind === kind);
    text.push(`${SECTION_TITLE[kind]} (${items.length})`);
    html.push(`<h3>${escapeHtml(SECTION_TITLE[kind])} (${items.length})</h3><ul>`);
    for (const g of groupsOf(items)) {
      if (g.orders.length === 0) {
        text.push(`- ${g.head}`);
        html.push(`<li>${escapeHtml(g.head)}</li>`);
        continue;
      }
      const shown = g.orders.slice(0, LIST_MAX);
      const more = g.orders.length - shown.length;
      text.push(`- ${g.head}`);
      for (const o of shown) text.push(`    ${o.name} <${links.order(o.id)}>`);
      if (more > 0) text.push(`    and ${more} more: ${links.attention}`);
      html.push(
        `<li>${escapeHtml(g.head)}<br>${shown
          .map((o) => `<a href="${escapeHtml(links.order(o.id))}">${escapeHtml(o.name)}</a>`)
          .join(", ")}${
          more > 0 ? `, <a href="${escapeHtml(links.attention)}">and ${more} more</a>` : ""
        }</li>`,
      );
    }
    html.push("</ul>");
    text.push("");
  }
  text.push(`Open the app: ${links.dashboard}`, "", "--");
  html.push(`<p><a href="${escapeHtml(links.dashboard)}">Open the app</a></p><hr>`);
  text.push(
    "You get these emails because this address is set for notifications in the app's settings.",
  );
  html.push(
    "<p>You get these emails because this address is set for notifications in the app's settings.</p><p>",
  );
  for (const kind of kinds) {
    const url = links.unsubscribe(kind);
    text.push(`Stop emails about “${KIND_LABEL[kind]}”: ${url}`);
    html.push(
      `<a href="${escapeHtml(url)}">Stop emails about “${escapeHtml(KIND_LABEL[kind])}”</a><br>`,
    );
  }
  const all = links.unsubscribe("all");
  text.push(`Stop all these emails: ${all}`);
  html.push(`<a href="${escapeHtml(all)}">Stop all these emails</a></p>`);
  return { subject, text: text.join("\n"), html: html.join("\n") };
}
