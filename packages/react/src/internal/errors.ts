import {
  ConnectionError,
  fieldInWords,
  HttpStatusError,
  isKnownError,
  KnownError,
  looksTechnical,
  schemaIssues,
} from "@gatehouse/js";
import type { GatehouseStrings } from "../strings.ts";

/** The form field an error belongs next to; `form` for errors about the whole attempt. */
export type ErrorField = "email" | "password" | "passwordRepeat" | "code" | "name" | "form";

export type DescribedError = { field: ErrorField; message: string; code: string | null };

function numberDetail(error: KnownError, key: string, fallback: number): number {
  const value = error.details?.[key];
  return typeof value === "number" ? value : fallback;
}

/** This package's wording of a known error, or null for codes it has no wording of its own for. */
export function knownErrorMessage(
  error: KnownError,
  s: GatehouseStrings,
  link = false,
): DescribedError | null {
  const known = (field: ErrorField, message: string): DescribedError => ({
    field,
    message,
    code: error.code,
  });
  switch (error.code) {
    case "EMAIL_PASSWORD_MISMATCH":
      return known("password", s.wrongEmailOrPassword);
    case "PASSWORD_TOO_SHORT":
      return known("password", s.passwordTooShort(numberDetail(error, "min_length", 8)));
    case "PASSWORD_TOO_LONG":
      return known("password", s.passwordTooLong(numberDetail(error, "maxLength", 70)));
    case "PASSWORD_CONFIRMATION_MISMATCH":
      return known("password", s.wrongCurrentPassword);
    case "USER_EMAIL_ALREADY_EXISTS":
      return known(
        "email",
        error.details?.would_work_if_email_was_verified === true
          ? s.emailAlreadyExistsUnverified
          : s.emailAlreadyExists,
      );
    case "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE":
      return known("email", s.emailUsedBySomeoneElse);
    case "USER_NOT_FOUND":
      return known("email", s.userNotFound);
    case "SIGN_UP_NOT_ENABLED":
      return known("form", s.signUpDisabled);
    case "PASSWORD_AUTHENTICATION_NOT_ENABLED":
      return known("form", s.passwordSignInDisabled);
    case "PASSKEY_AUTHENTICATION_NOT_ENABLED":
      return known("form", s.passkeyNotEnabled);
    case "REDIRECT_URL_NOT_WHITELISTED":
      return known("form", s.redirectNotTrusted);
    case "VERIFICATION_CODE_NOT_FOUND":
      return known("code", link ? s.linkInvalid : s.codeInvalid);
    case "VERIFICATION_CODE_EXPIRED":
      return known("code", link ? s.linkExpired : s.codeExpired);
    case "VERIFICATION_CODE_ALREADY_USED":
      return known("code", link ? s.linkUsed : s.codeUsed);
    case "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED":
      return known("code", s.codeTooManyAttempts);
    case "INVALID_TOTP_CODE":
      return known("code", s.invalidTotp);
    case "EMAIL_ALREADY_VERIFIED":
      return known("form", s.emailAlreadyVerified);
    case "TEAM_INVITATION_EMAIL_MISMATCH":
      return known("form", s.invitationEmailMismatch);
    case "TEAM_PERMISSION_REQUIRED":
    case "PROJECT_PERMISSION_REQUIRED":
      return known("form", s.noPermission);
    case "PASSKEY_WEBAUTHN_ERROR": {
      const name = error.details?.code;
      return known(
        "form",
        name === "NotAllowedError" || name === "AbortError" ? s.passkeyCancelled : s.passkeyFailed,
      );
    }
    case "PASSKEY_AUTHENTICATION_FAILED":
    case "PASSKEY_REGISTRATION_FAILED":
      return known("form", s.passkeyFailed);
    case "CLI_AUTH_EXPIRED_ERROR":
    case "CLI_AUTH_USED_ERROR":
    case "CLI_AUTH_ERROR":
      return known("form", error.message);
    default:
      return null;
  }
}

/** The API fields the components send, and the form field each one is shown under. */
const API_FIELDS: Record<string, ErrorField> = {
  email: "email",
  primary_email: "email",
  contact_channel_value: "email",
  password: "password",
  new_password: "password",
  old_password: "password",
  code: "code",
  totp: "code",
  display_name: "name",
};

/** SCHEMA_ERROR as a sentence under the field it is about: the first problem of the request's body or query. */
function describeSchemaError(error: KnownError, s: GatehouseStrings, link: boolean): DescribedError {
  const text = typeof error.details?.message === "string" ? error.details.message : error.message;
  const issue = schemaIssues(text).find((one) => one.location === "body" || one.location === "query");
  const key = issue?.path[0];
  if (!issue || !key) return { field: "form", message: s.invalidValues, code: error.code };
  const field = API_FIELDS[key] ?? "form";
  let message: string;
  if (issue.problem === "is required") message = s.required;
  // A code of the wrong shape ("must have exactly 45 characters") is a damaged link or a mistyped code to its reader.
  else if (field === "code") message = link ? s.linkInvalid : s.codeInvalid;
  else if (field === "email" && /email/.test(issue.problem)) message = s.invalidEmail;
  else {
    const label = field === "email" ? s.email : field === "password" ? s.password : fieldInWords(issue.path);
    message = s.fieldProblem(label[0]!.toUpperCase() + label.slice(1), issue.problem);
  }
  return { field, message, code: error.code };
}

/**
 * A failure as the user should read it, and where to show it. Known errors get the texts of `strings`,
 * SCHEMA_ERROR its first problem under its field; a plain 4xx of the server shows its own sentence; anything
 * else gets a generic apology rather than internals: never a request line, status line or stack.
 */
export function describeError(
  error: unknown,
  s: GatehouseStrings,
  options: { link?: boolean } = {},
): DescribedError {
  if (error instanceof KnownError || isKnownError(error)) {
    const knownError = error as KnownError;
    const known = knownErrorMessage(knownError, s, options.link === true);
    if (known) return known;
    if (knownError.code === "SCHEMA_ERROR") return describeSchemaError(knownError, s, options.link === true);
    if (knownError.code === "ALL_OVERLOADS_FAILED") {
      return { field: "form", message: s.invalidValues, code: knownError.code };
    }
    if (knownError.status === 429) return { field: "form", message: s.rateLimited, code: knownError.code };
    const usable = knownError.status < 500 && knownError.message && !looksTechnical(knownError.message);
    return { field: "form", message: usable ? knownError.message : s.unexpectedError, code: knownError.code };
  }
  if (error instanceof ConnectionError) {
    return { field: "form", message: error.diagnostics.online ? s.serverUnreachable : s.offline, code: null };
  }
  if (error instanceof HttpStatusError) {
    if (error.status === 429) return { field: "form", message: s.rateLimited, code: null };
    const text = error.responseText.trim();
    if (error.status >= 400 && error.status < 500 && text.length < 300 && !looksTechnical(text)) {
      return { field: "form", message: text || s.unexpectedError, code: null };
    }
  }
  if (error instanceof Error && /does not support passkeys/.test(error.message)) {
    return { field: "form", message: s.passkeyNotSupported, code: null };
  }
  return { field: "form", message: s.unexpectedError, code: null };
}

/** Whether the error is about the code or link itself (used, expired, wrong), so the page can offer a new one. */
export function isCodeProblem(error: unknown): boolean {
  return isKnownError(error, "VERIFICATION_ERROR");
}

/** Logs what the user did not see in full, for the developer. */
export function reportUnexpected(error: unknown): void {
  if (!(error instanceof KnownError) && typeof console !== "undefined") console.error(error);
}
