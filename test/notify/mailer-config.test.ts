/**
 * The process's mailer (app/notify/mailer.server.ts configuredMailer): none without SMTP_URL,
 * made once; and a failed send's words from a URL without credentials are left whole.
 */
import { describe, expect, it } from "vitest";
import { config } from "../../app/config.server";
import { configuredMailer, describeMailError } from "../../app/notify/mailer.server";

describe("the configured mailer", () => {
  it("is made once from SMTP_URL, none without it", () => {
    const first = configuredMailer();
    if (config.SMTP_URL) expect(first).not.toBeNull();
    else expect(first).toBeNull();
    expect(configuredMailer()).toBe(first);
  });

  it("a URL without user or password hides nothing from the message", () => {
    expect(describeMailError({ message: "Connection refused" }, "smtp://h.example:25")).toBe(
      "SMTP h.example: Connection refused",
    );
  });
});
