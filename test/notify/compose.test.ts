/** The digest's words: the subject says what happened, the HTML escapes what it quotes. */
import { describe, expect, it } from "vitest";
import { composeDigest, digestSubject, LIST_MAX } from "../../app/notify/compose";

const links = {
  attention: "https://app.example/app/orders?view=attention",
  dashboard: "https://app.example/app",
  order: (id: string) => `https://app.example/app/orders/${id}`,
  unsubscribe: (kind: string) => `https://app.example/notifications/unsubscribe?t=${kind}`,
};

describe("the digest email", () => {
  it("groups orders by their reason, and keeps other news as it is", () => {
    const mail = composeDigest(
      "acme.myshopify.com",
      [
        { kind: "failures", key: "held:a:x", text: "#1 is held: No match", orderId: "a" },
        { kind: "failures", key: "failed:b:y", text: "#2 failed: Refused (1605001)", orderId: "b" },
        { kind: "failures", key: "held:c:x", text: "#3 is held: No match", orderId: "c" },
        { kind: "failures", key: "flag:d:z", text: "#4: Returned to sender", orderId: "d" },
        { kind: "outage", key: "outage:t", text: "The service is not answering.", orderId: null },
      ],
      links,
    );
    expect(mail.text).toContain(
      [
        "Orders that need you (4)",
        "- 2 orders held: No match",
        "    #1 <https://app.example/app/orders/a>",
        "    #3 <https://app.example/app/orders/c>",
        "- 1 order failed: Refused (1605001)",
        "    #2 <https://app.example/app/orders/b>",
        "- 1 order to look at: Returned to sender",
        "    #4 <https://app.example/app/orders/d>",
        "",
        "The service (1)",
        "- The service is not answering.",
      ].join("\n"),
    );
    expect(mail.html).toContain(
      '<a href="https://app.example/app/orders/a">#1</a>, <a href="https://app.example/app/orders/c">#3</a>',
    );
  });

  it("names each kind of news in the subject, in one line", () => {
    expect(
      digestSubject("acme.myshopify.com", [
        { kind: "failures", key: "failed:1:x", text: "", orderId: "1" },
        { kind: "failures", key: "held:2:y", text: "", orderId: "2" },
        { kind: "failures", key: "held:3:y", text: "", orderId: "3" },
        { kind: "outage", key: "outage:2026", text: "", orderId: null },
        { kind: "low_balance", key: "low_balance:2026", text: "", orderId: null },
      ]),
    ).toBe("1 order failed, 2 orders held, the service is not answering, balance low · acme");
  });

  it("escapes what it quotes in the HTML, and counts what it does not list", () => {
    const many = Array.from({ length: LIST_MAX + 3 }, (_, i) => ({
      kind: "failures" as const,
      key: `failed:${i}:x`,
      text: `#${i} failed: <script>alert("x")</script> & more`,
      orderId: String(i),
    }));
    const mail = composeDigest("acme.myshopify.com", many, links);
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more");
    // One reason, one line: the orders under it, at most LIST_MAX of them by name.
    expect(mail.text).toContain(
      `- ${LIST_MAX + 3} orders failed: <script>alert("x")</script> & more`,
    );
    expect(mail.text.match(/^ {4}#\d+ </gm)).toHaveLength(LIST_MAX);
    expect(mail.text).toContain(`    and 3 more: ${links.attention}`);
    expect(mail.text).toContain("https://app.example/notifications/unsubscribe?t=failures");
    expect(mail.text).toContain(
      "Stop all these emails: https://app.example/notifications/unsubscribe?t=all",
    );
  });

  it("tells dispute news in its own section, each with the way to its order", () => {
    const notices = [
      {
        kind: "disputes" as const,
        key: "dispute:d1:status:Pending review:",
        text: "Dispute 700005 (order #1001) is now Pending review.",
        orderId: "o1",
      },
      {
        kind: "disputes" as const,
        key: "dispute:d1:message:M1",
        text: "Dispute 700005 (order #1001): support wrote: “A refund is on its way.”",
        orderId: "o1",
      },
    ];
    const mail = composeDigest("acme.myshopify.com", notices, links);
    expect(mail.text).toContain(
      [
        "Disputes (2)",
        "- Dispute 700005 (order #1001) is now Pending review.",
        "    the order <https://app.example/app/orders/o1>",
        "- Dispute 700005 (order #1001): support wrote: “A refund is on its way.”",
        "    the order <https://app.example/app/orders/o1>",
      ].join("\n"),
    );
    expect(mail.text).toContain("https://app.example/notifications/unsubscribe?t=disputes");
    expect(digestSubject("acme.myshopify.com", notices)).toBe("2 dispute updates · acme");
  });
});
