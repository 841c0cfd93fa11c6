import type { Transporter } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { MANAGED_PROVIDER_REFUSAL } from "../../config/email-server.ts";
import type { EmailServerConfig } from "../../config/index.ts";
import type { ServerEnv } from "../../env.ts";

export type SmtpOptions = SMTPTransport.Options;
export type Sender = { name: string; address: string };

/**
 * Where a project's mail goes: its own SMTP server, the server-wide shared one, or (with neither) the dev outbox,
 * where the message only stays in the table for the dashboard and tests.
 */
export type Delivery =
  | { kind: "dev-outbox" }
  | { kind: "smtp"; source: "project" | "shared"; options: SmtpOptions; from: Sender }
  /** The project asked for its own server but the config cannot be used; recorded as the delivery error. */
  | { kind: "misconfigured"; error: string };

/** Generous enough for slow providers, short enough that a dead host does not hold a worker slot for minutes. */
const DELIVERY_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/** What any SMTP transport we build may never do: read local files or fetch URLs named in a message. */
const LOCKED_DOWN = { disableFileAccess: true, disableUrlAccess: true } as const;

/** The SMTP settings an admin types in: the project config's `emails.server`, or a send-test-email body. */
export type SmtpSettings = { host: string; port: number; username?: string; password?: string };

export function smtpOptionsFromSettings(
  settings: SmtpSettings,
  timeouts: Partial<typeof DELIVERY_TIMEOUTS> = {},
): SmtpOptions {
  return {
    host: settings.host,
    port: settings.port,
    // Port 465 speaks TLS from the first byte; the others upgrade with STARTTLS when the server offers it.
    secure: settings.port === 465,
    ...(settings.username ? { auth: { user: settings.username, pass: settings.password ?? "" } } : {}),
    ...DELIVERY_TIMEOUTS,
    ...timeouts,
    ...LOCKED_DOWN,
  };
}

/** Reads `GATEHOUSE_SMTP_URL` (`smtp://user:pass@host:port`, or `smtps://` for TLS from the start). */
export function smtpOptionsFromUrl(url: string): SmtpOptions {
  const parsed = new URL(url);
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") {
    throw new Error("GATEHOUSE_SMTP_URL must start with smtp:// or smtps://");
  }
  const secure = parsed.protocol === "smtps:";
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    ...(parsed.username
      ? {
          auth: {
            user: decodeURIComponent(parsed.username),
            pass: decodeURIComponent(parsed.password),
          },
        }
      : {}),
    ...DELIVERY_TIMEOUTS,
    ...LOCKED_DOWN,
  };
}

/** Resend's SMTP relay (PROTOCOL-EXTRA §1.1). */
export const RESEND_SMTP = { host: "smtp.resend.com", port: 465, username: "resend" } as const;

/** Picks how a project's email is delivered (see `Delivery`). */
export function resolveDelivery(env: ServerEnv, projectName: string, server: EmailServerConfig): Delivery {
  if (!server.isShared) {
    if (server.provider === "managed") {
      return { kind: "misconfigured", error: MANAGED_PROVIDER_REFUSAL };
    }
    if (server.provider === "resend") {
      // Resend's SMTP relay: TLS on 465, the user "resend" and the API key as the password.
      if (!server.password) {
        return {
          kind: "misconfigured",
          error: "The Resend email provider needs the Resend API key as its password.",
        };
      }
      return {
        kind: "smtp",
        source: "project",
        options: smtpOptionsFromSettings({ ...RESEND_SMTP, password: server.password }),
        from: { name: server.senderName || projectName, address: server.senderEmail || env.emailFrom },
      };
    }
    if (!server.host || !server.port) {
      return { kind: "misconfigured", error: "The project's email server has no host or port configured." };
    }
    return {
      kind: "smtp",
      source: "project",
      options: smtpOptionsFromSettings({
        host: server.host,
        port: server.port,
        username: server.username,
        password: server.password,
      }),
      from: { name: server.senderName || projectName, address: server.senderEmail || env.emailFrom },
    };
  }
  if (env.smtpUrl) {
    try {
      return {
        kind: "smtp",
        source: "shared",
        options: smtpOptionsFromUrl(env.smtpUrl),
        from: { name: projectName, address: env.emailFrom },
      };
    } catch (error) {
      return {
        kind: "misconfigured",
        error: `The shared email server is misconfigured: ${errorText(error)}`,
      };
    }
  }
  return { kind: "dev-outbox" };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Turns a nodemailer failure into a sentence an admin can act on, keeping the server's own words. */
export function describeSmtpError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const detail = errorText(error);
  switch (code) {
    case "EAUTH":
    case "ENOAUTH":
      return `The email server rejected the login. Check the username and password. (${detail})`;
    case "EDNS":
      return `The email server's host name could not be resolved. Check the host. (${detail})`;
    case "ETIMEDOUT":
      return `The email server did not answer in time. Check the host and port. (${detail})`;
    case "ECONNECTION":
    case "ESOCKET":
      return `Could not connect to the email server. Check the host and port. (${detail})`;
    case "ETLS":
      return `The TLS connection to the email server failed. Check the port (465 uses TLS). (${detail})`;
    case "EENVELOPE":
      return `The email server refused the sender or recipient address. (${detail})`;
    default:
      return `Sending the email failed. (${detail})`;
  }
}

export type OutgoingMessage = {
  from: Sender;
  to: string[];
  subject: string;
  html: string;
  text: string;
  /** For emails a user can turn off: the one-click unsubscribe link (RFC 2369 and RFC 8058 headers). */
  unsubscribeUrl?: string;
};

/** nodemailer is loaded with the first message sent rather than at start (~0.05 s, ~4 MiB). */
async function loadNodemailer() {
  return (await import("nodemailer")).default;
}

export function sendWith(transporter: Transporter, message: OutgoingMessage): Promise<unknown> {
  return transporter.sendMail({
    from: message.from,
    to: message.to,
    subject: message.subject,
    html: message.html,
    text: message.text,
    ...(message.unsubscribeUrl
      ? {
          list: { unsubscribe: { url: message.unsubscribeUrl, comment: "Unsubscribe" } },
          // Mail clients may then unsubscribe with one POST to the link, without opening it (RFC 8058).
          headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
        }
      : {}),
  });
}

/**
 * Transports reused across deliveries, one per distinct SMTP config. Non-pooled transports hold no connection
 * between messages, so dropping the oldest one when the cache is full costs nothing.
 */
export class TransportCache {
  readonly #transports = new Map<string, Transporter>();

  constructor(readonly maxEntries = 50) {}

  async get(options: SmtpOptions): Promise<Transporter> {
    const nodemailer = await loadNodemailer();
    // Synchronous from here on, so two deliveries asking at once share one transport.
    const key = JSON.stringify(options);
    let transporter = this.#transports.get(key);
    if (!transporter) {
      transporter = nodemailer.createTransport(options);
      this.#transports.set(key, transporter);
      for (const [oldKey, old] of this.#transports) {
        if (this.#transports.size <= this.maxEntries) break;
        this.#transports.delete(oldKey);
        old.close();
      }
    }
    return transporter;
  }

  closeAll(): void {
    for (const transporter of this.#transports.values()) transporter.close();
    this.#transports.clear();
  }
}

/**
 * Sends one message with a fresh transport and an overall deadline, for the synchronous test email: the answer is
 * an error message rather than an exception, because a failing test email is an expected outcome.
 */
export async function trySendOnce(
  options: SmtpOptions,
  message: OutgoingMessage,
  deadlineMs: number,
): Promise<{ success: true } | { success: false; errorMessage: string }> {
  const transporter = (await loadNodemailer()).createTransport(options);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(Object.assign(new Error(`No answer within ${deadlineMs / 1000} s`), { code: "ETIMEDOUT" })),
      deadlineMs,
    );
  });
  try {
    await Promise.race([sendWith(transporter, message), deadline]);
    return { success: true };
  } catch (error) {
    return { success: false, errorMessage: describeSmtpError(error) };
  } finally {
    clearTimeout(timer);
    transporter.close();
  }
}
