/**
 * The whole digest email, word for word (app/notify/compose.ts): every kind's section in the
 * settings' order, the grouping of orders by reason, the lines not listed, the unsubscribe links,
 * plain text and HTML alike; and every subject the news can make.
 */
import { describe, expect, it } from "vitest";
import { type DigestNotice, composeDigest, digestSubject } from "../../app/notify/compose";

const links = {
  attention: "https://app.example/app/orders?view=attention&x=1",
  dashboard: "https://app.example/app",
  order: (id: string) => `https://app.example/app/orders/${id}?a=1&b=2`,
  unsubscribe: (kind: string) => `https://app.example/u?t=${kind}&s=1`,
};

const n = (kind: DigestNotice["kind"], key: string, text: string, orderId: string | null = null) =>
  ({ kind, key, text, orderId }) as DigestNotice;

describe("the whole digest", () => {
  it("every kind, word for word, in text and HTML", () => {
    const mail = composeDigest(
      "shop-a.myshopify.com",
      [
        n("disputes", "dispute:1", "Dispute 7 is now Closed.", "o9"),
        n("webhooks", "webhooks:x", "Webhooks are not registered."),
        n("failures", "failed:1", "#1 failed: Refused", "o1"),
        n("outage", "outage-over:1", "The service answers again."),
        n("low_balance", "low_balance:1", "The balance is 3.00 USD."),
        n("failures", "flag:2", "#2: Returned", "o2"),
        n("failures", "held:3", "#3 is held: No match", "o3"),
        n("failures", "held:4", "#4 is held: No match", "o4"),
        n("failures", "failed:5", "A line without an order name", null),
        n("failures", "failed:6", "#6 failed: Refused", null),
      ],
      links,
    );
    expect(mail.subject).toBe(
      "3 orders failed, 2 orders held, 1 order to look at, the service answers again, balance low, webhooks need attention, 1 dispute update · shop-a",
    );
    expect(mail.text).toBe(
      [
        "What needs you at shop-a.myshopify.com since the last email:",
        "",
        "Orders that need you (6)",
        "- 1 order failed: Refused",
        "    #1 <https://app.example/app/orders/o1?a=1&b=2>",
        "- 1 order to look at: Returned",
        "    #2 <https://app.example/app/orders/o2?a=1&b=2>",
        "- 2 orders held: No match",
        "    #3 <https://app.example/app/orders/o3?a=1&b=2>",
        "    #4 <https://app.example/app/orders/o4?a=1&b=2>",
        "- A line without an order name",
        "- #6 failed: Refused",
        "",
        "Balance (1)",
        "- The balance is 3.00 USD.",
        "",
        "The service (1)",
        "- The service answers again.",
        "",
        "Webhooks (1)",
        "- Webhooks are not registered.",
        "",
        "Disputes (1)",
        "- Dispute 7 is now Closed.",
        "    the order <https://app.example/app/orders/o9?a=1&b=2>",
        "",
        "Open the app: https://app.example/app",
        "",
        "--",
        "You get these emails because this address is set for notifications in the app's settings.",
        "Stop emails about “Orders that failed or stay held”: https://app.example/u?t=failures&s=1",
        "Stop emails about “Low balance”: https://app.example/u?t=low_balance&s=1",
        "Stop emails about “Service outage and recovery”: https://app.example/u?t=outage&s=1",
        "Stop emails about “Webhooks not registered or missing deliveries”: https://app.example/u?t=webhooks&s=1",
        "Stop emails about “Disputes: support's messages and status changes”: https://app.example/u?t=disputes&s=1",
        "Stop all these emails: https://app.example/u?t=all&s=1",
      ].join("\n"),
    );
    expect(mail.html).toBe(
      [
        "<p>What needs you at <strong>shop-a.myshopify.com</strong> since the last email:</p>",
        "<h3>Orders that need you (6)</h3><ul>",
        '<li>1 order failed: Refused<br><a href="https://app.example/app/orders/o1?a=1&amp;b=2">#1</a></li>',
        '<li>1 order to look at: Returned<br><a href="https://app.example/app/orders/o2?a=1&amp;b=2">#2</a></li>',
        '<li>2 orders held: No match<br><a href="https://app.example/app/orders/o3?a=1&amp;b=2">#3</a>, <a href="https://app.example/app/orders/o4?a=1&amp;b=2">#4</a></li>',
        "<li>A line without an order name</li>",
        "<li>#6 failed: Refused</li>",
        "</ul>",
        "<h3>Balance (1)</h3><ul>",
        "<li>The balance is 3.00 USD.</li>",
        "</ul>",
        "<h3>The service (1)</h3><ul>",
        "<li>The service answers again.</li>",
        "</ul>",
        "<h3>Webhooks (1)</h3><ul>",
        "<li>Webhooks are not registered.</li>",
        "</ul>",
        "<h3>Disputes (1)</h3><ul>",
        '<li>Dispute 7 is now Closed.<br><a href="https://app.example/app/orders/o9?a=1&amp;b=2">the order</a></li>',
        "</ul>",
        '<p><a href="https://app.example/app">Open the app</a></p><hr>',
        "<p>You get these emails because this address is set for notifications in the app's settings.</p><p>",
        '<a href="https://app.example/u?t=failures&amp;s=1">Stop emails about “Orders that failed or stay held”</a><br>',
        '<a href="https://app.example/u?t=low_balance&amp;s=1">Stop emails about “Low balance”</a><br>',
        '<a href="https://app.example/u?t=outage&amp;s=1">Stop emails about “Service outage and recovery”</a><br>',
        '<a href="https://app.example/u?t=webhooks&amp;s=1">Stop emails about “Webhooks not registered or missing deliveries”</a><br>',
        '<a href="https://app.example/u?t=disputes&amp;s=1">Stop emails about “Disputes: support&#39;s messages and status changes”</a><br>',
        '<a href="https://app.example/u?t=all&amp;s=1">Stop all these emails</a></p>',
      ].join("\n"),
    );
  });

  it("only the kinds it carries; a reason over several lines stays one group; the rest counted", () => {
    const many = Array.from({ length: 21 }, (_, i) =>
      n("failures", `held:${i}`, `#${i} is held: Two\nlines`, `o${i}`),
    );
    const mail = composeDigest("shop-b.myshopify.com", many, links);
    expect(mail.text.split("\n").slice(0, 4)).toEqual([
      "What needs you at shop-b.myshopify.com since the last email:",
      "",
      "Orders that need you (21)",
      "- 21 orders held: Two\nlines".split("\n")[0]!,
    ]);
    expect(mail.text).toContain("    #19 <https://app.example/app/orders/o19?a=1&b=2>\n");
    expect(mail.text).not.toContain("#20 <");
    expect(mail.text).toContain(
      "    and 1 more: https://app.example/app/orders?view=attention&x=1\n",
    );
    expect(mail.html).toContain(
      ', <a href="https://app.example/app/orders?view=attention&amp;x=1">and 1 more</a></li>',
    );
    expect(mail.text).not.toContain("Balance");
    expect(mail.text).not.toContain("t=outage");
    expect(mail.html).not.toContain("<h3>Disputes");
    // Exactly 20 by name: not 20 more.
    const twenty = composeDigest("s.myshopify.com", many.slice(0, 20), links);
    expect(twenty.text).not.toContain("more");
    expect(twenty.html).not.toContain("more");
    expect(twenty.text.match(/^ {4}#\d+ </gm)).toHaveLength(20);
  });
});

describe("the subject", () => {
  const s = (notices: DigestNotice[]) => digestSubject("shop-c.myshopify.com", notices);
  it("names what happened, in one line, capitalised; the shop without its myshopify domain", () => {
    expect(s([n("outage", "outage:1", "")])).toBe("The service is not answering · shop-c");
    expect(s([n("outage", "outage:1", ""), n("outage", "outage-over:1", "")])).toBe(
      "The service is not answering · shop-c",
    );
    expect(s([n("outage", "outage-over:1", "")])).toBe("The service answers again · shop-c");
    expect(s([n("webhooks", "webhooks:1", "")])).toBe("Webhooks need attention · shop-c");
    expect(s([n("low_balance", "low_balance:1", "")])).toBe("Balance low · shop-c");
    expect(s([n("failures", "flag:1", ""), n("failures", "flag:2", "")])).toBe(
      "2 orders to look at · shop-c",
    );
    expect(s([n("failures", "held:1", "")])).toBe("1 order held · shop-c");
    expect(s([n("failures", "failed:1", ""), n("failures", "failed:2", "")])).toBe(
      "2 orders failed · shop-c",
    );
    // Keys of another kind or prefix are not counted as that news.
    expect(s([n("outage", "other:1", ""), n("webhooks", "other:1", "")])).toBe(
      "2 notices · shop-c",
    );
    expect(s([n("low_balance", "x:1", "")])).toBe("1 notice · shop-c");
    expect(s([n("disputes", "failed:1", "")])).toBe("1 dispute update · shop-c");
    expect(s([n("outage", "held:1", ""), n("outage", "low_balance:1", "")])).toBe(
      "2 notices · shop-c",
    );
    expect(s([n("webhooks", "failed:1", ""), n("webhooks", "flag:1", "")])).toBe(
      "2 notices · shop-c",
    );
    expect(s([n("failures", "outage:1", ""), n("failures", "webhooks:1", "")])).toBe(
      "2 notices · shop-c",
    );
    expect(s([n("failures", "outage-over:1", ""), n("failures", "low_balance:1", "")])).toBe(
      "2 notices · shop-c",
    );
    expect(digestSubject("plain.example.com", [n("outage", "outage:1", "")])).toBe(
      "The service is not answering · plain.example.com",
    );
    expect(digestSubject("a.myshopify.com.evil", [n("outage", "outage:1", "")])).toBe(
      "The service is not answering · a.myshopify.com.evil",
    );
  });
});
