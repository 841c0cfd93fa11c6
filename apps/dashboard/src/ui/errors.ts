import {
  ConnectionError,
  fieldInWords,
  HttpStatusError,
  isKnownError,
  KnownError,
  looksTechnical,
  schemaIssues,
} from "@gatehouse/js";

/**
 * A failure as an owner reads it: one message, plus a message per form field when the server named fields
 * (SCHEMA_ERROR), keyed by the API's field name (`primary_email`). Never a request line, status line or stack.
 */
export type DescribedError = { message: string; fields: Record<string, string> };

/** The API's names of the fields the dashboard's forms send, as their labels say them. */
const FIELD_LABELS: Record<string, string> = {
  primary_email: "Email",
  email: "Email",
  recipient_email: "Recipient",
  display_name: "Name",
  password: "Password",
  description: "Description",
  domain: "Domain",
  handler_path: "Handler path",
  url: "URL",
  id: "ID",
  client_id: "Client ID",
  client_secret: "Client secret",
  sender_email: "Sender email",
  sender_name: "Sender name",
  host: "Host",
  port: "Port",
  username: "Username",
  subject: "Subject",
  html: "HTML",
  expires_at_millis: "Expiry",
  profile_image_url: "Image",
  client_metadata: "Client metadata",
  client_read_only_metadata: "Client read-only metadata",
  server_metadata: "Server metadata",
};

/** The wording of known errors an owner meets in the dashboard, where the server's own is written for developers. */
const KNOWN: Record<string, { message: string; field?: string }> = {
  USER_EMAIL_ALREADY_EXISTS: { message: "A user with this email already exists.", field: "primary_email" },
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: {
    message: "Another user already signs in with this email.",
    field: "primary_email",
  },
  PASSWORD_TOO_SHORT: { message: "The password is too short.", field: "password" },
  PASSWORD_TOO_LONG: { message: "The password is too long.", field: "password" },
  PASSWORD_REQUIREMENTS_NOT_MET: {
    message: "The password does not meet the requirements.",
    field: "password",
  },
  USER_NOT_FOUND: { message: "This user does not exist (any more)." },
  TEAM_NOT_FOUND: { message: "This team does not exist (any more)." },
  TEAM_MEMBERSHIP_ALREADY_EXISTS: { message: "This user is already a member of the team." },
  PERMISSION_ID_ALREADY_EXISTS: { message: "A permission with this ID already exists.", field: "id" },
  REDIRECT_URL_NOT_WHITELISTED: { message: "This address is not one of the project's trusted domains." },
  INSUFFICIENT_ACCESS_TYPE: { message: "You are not allowed to do this in this project." },
  PROJECT_PERMISSION_REQUIRED: { message: "You are not allowed to do this in this project." },
  TEAM_PERMISSION_REQUIRED: { message: "You are not allowed to do this in this team." },
  INVALID_ACCESS_TOKEN: { message: "Your session has ended. Sign in again." },
  ADMIN_ACCESS_TOKEN_EXPIRED: { message: "Your session has ended. Sign in again." },
  ACCESS_TOKEN_EXPIRED: { message: "Your session has ended. Sign in again." },
  UNSUPPORTED_ERROR: { message: "The server refused this with an error this dashboard does not know." },
};

const GENERIC = "Something went wrong. Try again in a moment.";
const SERVER_FAILED = "The server ran into a problem and did not finish this. Try again in a moment.";
const RATE_LIMITED = "Too many attempts in a short time. Wait a little and try again.";
const OFFLINE = "You seem to be offline. Check your connection and try again.";
const UNREACHABLE = "The server cannot be reached right now. Try again in a moment.";

function capitalize(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}

/** SCHEMA_ERROR's problems as sentences, each under the API field it is about. */
function describeSchemaError(text: string, labels: Record<string, string>): DescribedError | null {
  const issues = schemaIssues(text).filter(
    (issue) => issue.location === "body" || issue.location === "query",
  );
  if (issues.length === 0) return null;
  const fields: Record<string, string> = {};
  const sentences: string[] = [];
  for (const issue of issues) {
    const key = issue.path[0];
    const label = key ? (labels[key] ?? FIELD_LABELS[key] ?? capitalize(fieldInWords(issue.path))) : null;
    const rest = issue.path.length > 1 ? ` (${fieldInWords(issue.path.slice(1))})` : "";
    const sentence = label ? `${label}${rest} ${issue.problem}.` : `${capitalize(issue.problem)}.`;
    if (key && !fields[key]) fields[key] = sentence;
    sentences.push(sentence);
  }
  return { message: [...new Set(sentences)].join(" "), fields };
}

/**
 * The one reading of a failure for the dashboard. `labels` names the form's fields as the form shows them, for
 * SCHEMA_ERROR problems about them (`{ primary_email: "Email" }`; common fields are known already).
 */
export function describeError(error: unknown, labels: Record<string, string> = {}): DescribedError {
  const plain = (message: string): DescribedError => ({ message, fields: {} });
  if (error instanceof KnownError || isKnownError(error)) {
    const known = error as KnownError;
    if (known.code === "SCHEMA_ERROR") {
      const text = typeof known.details?.message === "string" ? known.details.message : known.message;
      return describeSchemaError(text, labels) ?? plain("Some of the values are not valid.");
    }
    if (known.code === "ALL_OVERLOADS_FAILED") return plain("Some of the values are not valid.");
    const mapped = KNOWN[known.code];
    if (mapped) {
      return { message: mapped.message, fields: mapped.field ? { [mapped.field]: mapped.message } : {} };
    }
    if (known.status === 429 || known.code.includes("RATE_LIMIT")) return plain(RATE_LIMITED);
    if (known.status >= 500) return plain(SERVER_FAILED);
    return plain(known.message && !looksTechnical(known.message) ? known.message : GENERIC);
  }
  if (error instanceof ConnectionError) return plain(error.diagnostics.online ? UNREACHABLE : OFFLINE);
  if (error instanceof HttpStatusError || (error instanceof Error && error.name === "HttpStatusError")) {
    const status = (error as HttpStatusError).status ?? 0;
    const text = String((error as HttpStatusError).responseText ?? "").trim();
    if (status === 429) return plain(RATE_LIMITED);
    if (status >= 400 && status < 500 && text && text.length < 300 && !looksTechnical(text))
      return plain(text);
    if (status === 401) return plain("Your session has ended. Sign in again.");
    if (status === 403) return plain("You are not allowed to do this in this project.");
    if (status === 404) return plain("This does not exist (any more).");
    if (status >= 500) return plain(SERVER_FAILED);
    return plain(GENERIC);
  }
  if (error instanceof Error) {
    if (error.name === "AbortError") return plain("Cancelled.");
    if (/failed to fetch|networkerror|load failed/i.test(error.message)) return plain(UNREACHABLE);
    return plain(error.message && !looksTechnical(error.message) ? error.message : GENERIC);
  }
  if (typeof error === "string" && error && !looksTechnical(error)) return plain(error);
  return plain(GENERIC);
}

/** What to tell an owner about a failure, in one message. */
export function errorMessage(error: unknown): string {
  const described = describeError(error);
  if (described.message === GENERIC && typeof console !== "undefined") console.error(error);
  return described.message;
}

/** The message for one field of a form, or null; the rest of a failure goes to the form's own message. */
export function fieldError(described: DescribedError | null, field: string): string | null {
  return described?.fields[field] ?? null;
}

/**
 * The check a form makes before it sends an email address, so an obvious slip ("ada@", a space) is said next to
 * the field at once; the server's own rule stays the authority.
 */
export function looksLikeEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}
