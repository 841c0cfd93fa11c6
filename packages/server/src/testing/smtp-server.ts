import type net from "node:net";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { freePort } from "./ports.ts";

/** A message as the test SMTP server received it: the envelope, the login used, and the parsed content. */
export type ReceivedEmail = {
  envelope: { from: string | null; to: string[] };
  /** The SMTP username the client logged in with, or null without AUTH. */
  authenticatedUser: string | null;
  from: { name: string; address: string } | null;
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Map<string, unknown>;
};

export type TestSmtpServer = {
  port: number;
  /** `smtp://127.0.0.1:<port>`, usable as GATEHOUSE_SMTP_URL. */
  url: string;
  /** Every message received so far, in arrival order. */
  messages: ReceivedEmail[];
  /** The first message (already received or still to come) with `address` among its recipients. */
  waitForMessageTo: (address: string, options?: { timeoutMs?: number }) => Promise<ReceivedEmail>;
  close: () => Promise<void>;
};

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((o) => o.value.flatMap((a) => (a.address ? [a.address.toLowerCase()] : [])));
}

/**
 * A real SMTP server on 127.0.0.1, without TLS, for tests of email delivery; on a free port unless `port` is given
 * (to bring up a server where one was down). Login is optional; with `users` given, a login must match one of them
 * (to test bad credentials), otherwise any login is accepted.
 */
export async function startTestSmtpServer(
  options: { users?: Record<string, string>; port?: number } = {},
): Promise<TestSmtpServer> {
  const messages: ReceivedEmail[] = [];
  const waiters: { address: string; resolve: (message: ReceivedEmail) => void }[] = [];

  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    onAuth(auth, _session, callback) {
      const expected = options.users?.[auth.username ?? ""];
      if (options.users && (expected === undefined || expected !== auth.password)) {
        callback(new Error("Invalid username or password"));
        return;
      }
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const from = parsed.from?.value[0];
          const message: ReceivedEmail = {
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            },
            authenticatedUser: typeof session.user === "string" ? session.user : null,
            from: from ? { name: from.name, address: (from.address ?? "").toLowerCase() } : null,
            to: addresses(parsed.to),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: parsed.html || "",
            headers: parsed.headers as Map<string, unknown>,
          };
          messages.push(message);
          for (const waiter of [...waiters]) {
            if (message.envelope.to.includes(waiter.address)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(message);
            }
          }
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as net.AddressInfo).port;

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMessageTo: (rawAddress, { timeoutMs = 10_000 } = {}) => {
      const address = rawAddress.toLowerCase();
      const received = messages.find((m) => m.envelope.to.includes(address));
      if (received) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`No email to ${address} arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = {
          address,
          resolve: (message: ReceivedEmail) => {
            clearTimeout(timer);
            resolve(message);
          },
        };
        waiters.push(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A local port that nothing listens on (bound once, then released), to stand for an SMTP server that is down. */
export const closedPort = freePort;
