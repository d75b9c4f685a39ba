/**
 * A mail catcher: a real SMTP server (smtp-server) in the same process, and a small HTTP API
 * over the mails it caught (the sandbox's mail page and the tests read it).
 *
 * As strict as a plain submission server: it checks the envelope (sender and recipients must
 * be addresses), refuses messages over its size limit, requires the credentials when it was
 * started with some (AUTH PLAIN/LOGIN, no STARTTLS on loopback), and can refuse everything
 * with a given SMTP code to exercise failures.
 *
 * HTTP: GET /mails (JSON, oldest first), DELETE /mails (forget them).
 */
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CaughtMail {
  messageId: string;
  from: string;
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  receivedAt: string;
}

export interface MailSim {
  /** smtp://[user:pass@]127.0.0.1:port, for SMTP_URL. */
  smtpUrl: string;
  /** The HTTP API's base address (GET /mails). */
  url: string;
  mails(): CaughtMail[];
  /** Refuse every message with this SMTP code (e.g. 451, 550); null accepts again. */
  refuse(code: number | null): void;
  close(): Promise<void>;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

export async function startMailSim(
  opts: { user?: string; pass?: string; maxBytes?: number } = {},
): Promise<MailSim> {
  const caught: CaughtMail[] = [];
  let refuseWith: number | null = null;
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const needAuth = Boolean(opts.user);

  const smtp = new SMTPServer({
    secure: false,
    disabledCommands: needAuth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !needAuth,
    allowInsecureAuth: true,
    size: maxBytes,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass)
        cb(null, { user: auth.username });
      else cb(Object.assign(new Error("Invalid login"), { responseCode: 535 }));
    },
    onMailFrom(address, _session, cb) {
      if (!ADDRESS.test(address.address))
        return cb(Object.assign(new Error("Bad sender address"), { responseCode: 553 }));
      cb();
    },
    onRcptTo(address, _session, cb) {
      if (!ADDRESS.test(address.address))
        return cb(Object.assign(new Error("Bad recipient address"), { responseCode: 553 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded)
          return cb(Object.assign(new Error("Message too big"), { responseCode: 552 }));
        if (refuseWith !== null)
          return cb(
            Object.assign(new Error("Refused by the simulator"), { responseCode: refuseWith }),
          );
        simpleParser(Buffer.concat(chunks))
          .then((m) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of m.headers) {
              if (typeof v === "string") headers[k] = v;
            }
            for (const line of m.headerLines) {
              if (/^list-unsubscribe|^auto-submitted/i.test(line.key))
                headers[line.key] = line.line.slice(line.key.length + 1).trim();
            }
            caught.push({
              messageId: m.messageId ?? "",
              from: m.from?.text ?? "",
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: m.subject ?? "",
              text: m.text ?? "",
              html: typeof m.html === "string" ? m.html : "",
              headers,
              receivedAt: new Date().toISOString(),
            });
            cb();
          })
          .catch((error: unknown) => cb(error as Error));
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", r));
  const port = (smtp.server.address() as AddressInfo).port;
  const cred = needAuth
    ? `${encodeURIComponent(opts.user ?? "")}:${encodeURIComponent(opts.pass ?? "")}@`
    : "";

  const http = createHttpServer((req, res) => {
    if (req.url === "/mails" && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(caught));
    } else if (req.url === "/mails" && req.method === "DELETE") {
      caught.length = 0;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));

  return {
    smtpUrl: `smtp://${cred}127.0.0.1:${port}`,
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    mails: () => [...caught],
    refuse(code) {
      refuseWith = code;
    },
    async close() {
      await Promise.all([
        new Promise<void>((r) => smtp.close(() => r())),
        new Promise<void>((r) => http.close(() => r())),
      ]);
    },
  };
}
