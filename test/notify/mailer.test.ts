/**
 * Sending email (app/notify/mailer.server.ts) to the in-process SMTP server (test/sim/mail): a
 * mail arrives as written, with its Message-ID and headers; a refusal or a wrong password is a
 * MailError naming the server's host and its answer, never the password or the user name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MailError, describeMailError, smtpMailer } from "../../app/notify/mailer.server";
import { type MailSim, startMailSim } from "../sim/mail/server";

const PASS = "p@ss:w/rd secret";
let open: MailSim;
let locked: MailSim;
beforeAll(async () => {
  open = await startMailSim();
  locked = await startMailSim({ user: "mailer-user", pass: PASS });
});
afterAll(async () => {
  await open?.close();
  await locked?.close();
});

const mail = (n: number) => ({
  messageId: `<digest-${n}@app.example>`,
  from: "Dropship Autopilot <alerts@app.example>",
  to: ["owner@shop.example", "ops@shop.example"],
  subject: `Digest ${n}`,
  text: "Two orders held.",
  html: "<p>Two orders held.</p>",
  headers: { "List-Unsubscribe": "<https://app.example/u?t=1>" },
});

describe("the SMTP mailer", () => {
  it("sends the mail as written, to every recipient", async () => {
    await smtpMailer(open.smtpUrl, 5_000).send(mail(1));
    const got = open.mails().at(-1)!;
    expect(got).toMatchObject({
      messageId: "<digest-1@app.example>",
      to: ["owner@shop.example", "ops@shop.example"],
      subject: "Digest 1",
      text: "Two orders held.",
      html: "<p>Two orders held.</p>",
    });
    expect(got.from).toContain("alerts@app.example");
    expect(got.headers["list-unsubscribe"]).toBe("<https://app.example/u?t=1>");
  });

  it("logs in with the URL's credentials", async () => {
    const url = locked.smtpUrl;
    expect(url).toContain("mailer-user");
    await smtpMailer(url, 5_000).send(mail(2));
    expect(locked.mails().at(-1)!.subject).toBe("Digest 2");
  });

  it("a wrong password: a MailError with the host and the answer, no credentials", async () => {
    const bad = new URL(locked.smtpUrl);
    bad.password = encodeURIComponent("wrong-password");
    const e = await smtpMailer(bad.toString(), 5_000)
      .send(mail(3))
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MailError);
    expect((e as Error).name).toBe("MailError");
    expect((e as Error).message).toMatch(/^SMTP 127\.0\.0\.1: 535 EAUTH /);
    expect((e as Error).message).not.toContain("wrong-password");
    expect((e as Error).message).not.toContain("mailer-user");
  });

  it("a refusal: the server's code in the message", async () => {
    open.refuse(550);
    try {
      const e = await smtpMailer(open.smtpUrl, 5_000)
        .send(mail(4))
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(MailError);
      expect((e as Error).message).toMatch(/^SMTP 127\.0\.0\.1: 550 /);
    } finally {
      open.refuse(null);
    }
  });
});

describe("what a failed send says", () => {
  const url = `smtp://mailer-user:${encodeURIComponent(PASS)}@smtp.example.com:587`;

  it("host, code and the library's message, with the user and password starred out", () => {
    expect(
      describeMailError(
        { responseCode: 535, code: "EAUTH", message: `Invalid login for mailer-user ${PASS}` },
        url,
      ),
    ).toBe("SMTP smtp.example.com: 535 EAUTH Invalid login for *** ***");
    expect(describeMailError({ message: `bad ${encodeURIComponent(PASS)} and ${PASS}` }, url)).toBe(
      "SMTP smtp.example.com: bad *** and ***",
    );
    expect(describeMailError({ code: "ETIMEDOUT", message: "Timeout" }, url)).toBe(
      "SMTP smtp.example.com: ETIMEDOUT Timeout",
    );
    expect(describeMailError({ responseCode: "535", code: 7, message: "x" }, url)).toBe(
      "SMTP smtp.example.com: x",
    );
  });

  it("anything thrown, any URL; the message cut to 300 characters", () => {
    expect(describeMailError("plain text", url)).toBe("SMTP smtp.example.com: plain text");
    expect(describeMailError(null, url)).toBe("SMTP smtp.example.com: null");
    expect(describeMailError({ message: "m" }, "not a url")).toBe("SMTP server: m");
    expect(describeMailError({ message: "m" }, "smtp://")).toBe("SMTP server: m");
    expect(describeMailError({ message: "m" }, "smtp://h.example")).toBe("SMTP h.example: m");
    expect(describeMailError({ message: "x".repeat(400) }, url)).toBe(
      `SMTP smtp.example.com: ${"x".repeat(300)}`,
    );
  });
});
