import { decryptSecret, encryptSecret } from "../../crypto/index.ts";
import type { ServerEnv } from "../../env.ts";
import { escapeHtml } from "../../http/html.ts";
import type { SentEmailRow } from "./schema.ts";

/**
 * What a sent-email row may keep, and for how long.
 *
 * The mail platform sends one-time secrets (verification, reset and sign-in links and codes). A database backup
 * must not be a way to reset someone's password, so the row's `subject`, `html` and `text` columns only ever hold a
 * redacted copy (codes and links replaced by `[redacted]`), from the moment the row is written. The message as it
 * is sent lives in `body_encrypted`, AES-256-GCM under a key derived from GATEHOUSE_SECRET, and only as long as it
 * is needed: while the row waits for delivery. The worker drops it once the SMTP server accepted the message or
 * delivery failed for good. The one exception is development's dev outbox, where the message is never sent
 * anywhere: there the row is the developer's local inbox (and what tests read codes from), so the sealed body is
 * kept; it is still encrypted, so a database copied off a laptop shows no codes either.
 */

/** The message as it is sent. */
export type EmailMessage = { subject: string; html: string; text: string; unsubscribeUrl?: string };

export const REDACTED = "[redacted]";

/** A separate key per purpose (crypto/encryption.ts): an email body cannot be decrypted as any other secret. */
const bodyKey = (env: Pick<ServerEnv, "secret">) => ({
  masterSecret: env.secret,
  purpose: "sent-email-body",
});

export function sealMessage(env: Pick<ServerEnv, "secret">, message: EmailMessage): string {
  return encryptSecret(JSON.stringify(message), bodyKey(env));
}

/** Decrypts a sealed message; throws SecretDecryptionError if it was made under another GATEHOUSE_SECRET. */
export function openMessage(env: Pick<ServerEnv, "secret">, sealed: string): EmailMessage {
  const parsed = JSON.parse(decryptSecret(sealed, bodyKey(env))) as Partial<EmailMessage>;
  return {
    subject: parsed.subject ?? "",
    html: parsed.html ?? "",
    text: parsed.text ?? "",
    ...(parsed.unsubscribeUrl ? { unsubscribeUrl: parsed.unsubscribeUrl } : {}),
  };
}

/**
 * A template's variables hold what the rendered message will (the built-in emails' links and codes), so until the
 * row is rendered they are sealed the same way, under a key of their own.
 */
const variablesKey = (env: Pick<ServerEnv, "secret">) => ({
  masterSecret: env.secret,
  purpose: "sent-email-variables",
});

export function sealVariables(env: Pick<ServerEnv, "secret">, variables: Record<string, unknown>): string {
  return encryptSecret(JSON.stringify(variables), variablesKey(env));
}

export function openVariables(env: Pick<ServerEnv, "secret">, sealed: string): Record<string, unknown> {
  const parsed = JSON.parse(decryptSecret(sealed, variablesKey(env))) as unknown;
  return parsed && typeof parsed === "object" && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/**
 * A row as its recipient saw it: the sealed message when the row still has it (queued, or in development's dev
 * outbox), else the redacted copy. For whoever may read the developer's inbox (tests, a local inbox view).
 */
export function readableEmail<Row extends SentEmailRow>(env: Pick<ServerEnv, "secret">, row: Row): Row {
  return row.bodyEncrypted ? { ...row, ...openMessage(env, row.bodyEncrypted) } : row;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Links that carry something after the path (`?code=…`, `#token=…`): every emailed secret link does. Plain links (a
 * logo, a home page) carry nothing secret and stay.
 */
export const LINK_WITH_PARAMETERS = /https?:\/\/[^\s"'<>]*[?#][^\s"'<>]*/gi;
/** Our one-time codes are 45 Crockford base32 characters (verification-codes); a net for any that slip through. */
const LONG_CODE = /\b[0-9a-hjkmnp-tv-z]{45}\b/gi;
/** Secrets shorter than this are not searched for on their own: replacing every "ab" would shred the text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces the given secrets (the link, the code a person types) wherever they appear: as written, HTML-escaped
 * either way a renderer may escape them (`&amp;` or `&#38;`), in any letter case (templates show codes in
 * capitals). Then, as a net for what a caller did not name, links with parameters and 45-character codes.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  const spellings = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    spellings.add(secret);
    spellings.add(secret.replaceAll("&", "&amp;"));
    spellings.add(escapeHtml(secret));
  }
  // Longest first, so that a link goes as a whole before the code inside it is looked for.
  let redacted = text;
  for (const spelling of [...spellings].sort((a, b) => b.length - a.length)) {
    redacted = redacted.replace(new RegExp(escapeRegExp(spelling), "gi"), REDACTED);
  }
  return redacted.replace(LINK_WITH_PARAMETERS, REDACTED).replace(LONG_CODE, REDACTED);
}

export function redactMessage(
  message: EmailMessage,
  secrets: readonly string[],
): Pick<EmailMessage, "subject" | "html" | "text"> {
  return {
    subject: redactText(message.subject, secrets),
    html: redactText(message.html, secrets),
    text: redactText(message.text, secrets),
  };
}
