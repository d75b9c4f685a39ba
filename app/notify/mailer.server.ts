/**
 * Sending email: a real SMTP client (nodemailer) to the server in SMTP_URL. Tests and the
 * sandbox point it at an in-process SMTP server (test/sim/mail). An error never carries the
 * URL's password: only the server's host and its answer.
 */
import nodemailer from "nodemailer";
import { config } from "../config.server";

export interface Mail {
  messageId: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export class MailError extends Error {
  override name = "MailError";
}

/** What a failed send says, without credentials: "SMTP smtp.example.com: 535 Invalid login". */
export function describeMailError(error: unknown, url: string): string {
  let host = "server";
  try {
    host = new URL(url).hostname || host;
  } catch {
    // keep "server"
  }
  const e = error as { responseCode?: unknown; code?: unknown; message?: unknown } | null;
  const parts = [
    typeof e?.responseCode === "number" ? String(e.responseCode) : "",
    typeof e?.code === "string" ? e.code : "",
  ].filter(Boolean);
  let message = typeof e?.message === "string" ? e.message : String(error);
  // Whatever the library put in its message, no part of the URL's user or password stays.
  try {
    const u = new URL(url);
    for (const secret of [u.password, decodeURIComponent(u.password), u.username]) {
      if (secret) message = message.split(secret).join("***");
    }
  } catch {
    // not a URL: nothing to hide from it
  }
  return `SMTP ${host}: ${[...parts, message.slice(0, 300)].join(" ")}`;
}

export function smtpMailer(url: string, timeoutMs = 20_000): Mailer {
  const transport = nodemailer.createTransport(url, {
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // No credentials, bodies or addresses in nodemailer's own logging.
    logger: false,
    debug: false,
  });
  return {
    async send(mail) {
      try {
        await transport.sendMail({
          messageId: mail.messageId,
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: mail.headers,
        });
      } catch (error) {
        throw new MailError(describeMailError(error, url));
      }
    },
  };
}

let shared: Mailer | null | undefined;

/** The mailer of this process's configuration; null when SMTP_URL is unset. */
export function configuredMailer(): Mailer | null {
  if (shared === undefined) shared = config.SMTP_URL ? smtpMailer(config.SMTP_URL) : null;
  return shared;
}
